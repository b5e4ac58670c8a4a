"""Where each tool keeps its models, read from the environment as the tool reads it.

=============  ===========================================================================
source         folders, first match wins where a tool takes one
=============  ===========================================================================
Hugging Face   ``HF_HUB_CACHE``, ``HUGGINGFACE_HUB_CACHE``, ``HF_HOME``/hub,
               ``XDG_CACHE_HOME``/huggingface/hub, ~/.cache/huggingface/hub
               (huggingface_hub's own order); also ``TRANSFORMERS_CACHE`` if set
Ollama         ``OLLAMA_MODELS``, else ~/.ollama/models and (Linux) the system service's
               /usr/share/ollama/.ollama/models
LM Studio      the models folder of its home (``~/.lmstudio-home-pointer`` names the
               home, else ~/.lmstudio), or ``downloadsFolder`` of its settings.json;
               the old ~/.cache/lm-studio/models
llama.cpp      ``LLAMA_CACHE`` (both layouts: since March 2026 llama.cpp keeps the Hugging
               Face layout there, and uses the Hugging Face cache when it is unset), else
               its old flat cache: ``XDG_CACHE_HOME``/llama.cpp or ~/.cache/llama.cpp
               (macOS ~/Library/Caches/llama.cpp, Windows %LOCALAPPDATA%/llama.cpp)
=============  ===========================================================================

Example::

    >>> [(r.source, r.layout, str(r.path)) for r in model_roots({"HOME": "/home/me"})][:2]
    [('Hugging Face', 'hf-hub', '/home/me/.cache/huggingface/hub'),
     ('Ollama', 'ollama', '/home/me/.ollama/models')]
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Mapping

from .found import HF, LLAMA_CPP, LM_STUDIO, MAX_JSON_BYTES, OLLAMA, ModelRoot

SYSTEM_OLLAMA = Path("/usr/share/ollama/.ollama/models")   # install.sh's service user


def home_of(environ: Mapping[str, str]) -> Path:
    home = environ.get("USERPROFILE" if sys.platform == "win32" else "HOME")
    return Path(home) if home else Path.home()


def _path(value: str, home: Path) -> Path:
    value = os.path.expandvars(value)
    if value == "~" or value.startswith("~/") or value.startswith("~" + os.sep):
        value = str(home) + value[1:]
    return Path(value)


def _first(environ: Mapping[str, str], home: Path, *names: str) -> tuple[Path, str] | None:
    for name in names:
        if environ.get(name):
            return _path(environ[name], home), name
    return None


def hf_roots(environ: Mapping[str, str], home: Path) -> list[ModelRoot]:
    found = _first(environ, home, "HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE")
    if found is None and environ.get("HF_HOME"):
        found = _path(environ["HF_HOME"], home) / "hub", "HF_HOME"
    if found is None and environ.get("XDG_CACHE_HOME"):
        found = _path(environ["XDG_CACHE_HOME"], home) / "huggingface" / "hub", \
            "XDG_CACHE_HOME"
    if found is None:
        found = home / ".cache" / "huggingface" / "hub", "default"
    roots = [ModelRoot(HF, "hf-hub", found[0], found[1])]
    if environ.get("TRANSFORMERS_CACHE"):
        roots.append(ModelRoot(HF, "hf-hub", _path(environ["TRANSFORMERS_CACHE"], home),
                               "TRANSFORMERS_CACHE"))
    return roots


def ollama_roots(environ: Mapping[str, str], home: Path, system: bool) -> list[ModelRoot]:
    if environ.get("OLLAMA_MODELS"):
        return [ModelRoot(OLLAMA, "ollama", _path(environ["OLLAMA_MODELS"], home),
                          "OLLAMA_MODELS")]
    roots = [ModelRoot(OLLAMA, "ollama", home / ".ollama" / "models", "default")]
    if system and sys.platform.startswith("linux"):
        roots.append(ModelRoot(OLLAMA, "ollama", SYSTEM_OLLAMA, "the ollama service"))
    return roots


def _read_small(path: Path) -> bytes | None:
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_JSON_BYTES + 1)
    except OSError:
        return None
    return data if len(data) <= MAX_JSON_BYTES else None


def lm_studio_home(home: Path) -> tuple[Path, str]:
    """LM Studio's home: the folder named in ~/.lmstudio-home-pointer if it exists,
    else ~/.lmstudio."""
    data = _read_small(home / ".lmstudio-home-pointer")
    if data:
        line = data.decode("utf-8", "replace").strip().splitlines()
        if line and Path(line[0].strip()).is_dir():
            return Path(line[0].strip()), "~/.lmstudio-home-pointer"
    return home / ".lmstudio", "default"


def _downloads_folder(settings: Path) -> Path | None:
    data = _read_small(settings)
    if not data:
        return None
    try:
        value = json.loads(data.decode("utf-8")).get("downloadsFolder")
    except (ValueError, UnicodeDecodeError, AttributeError):
        return None
    return Path(value) if isinstance(value, str) and value.strip() else None


def _app_settings(home: Path, environ: Mapping[str, str]) -> list[Path]:
    """Where the LM Studio app keeps its settings.json, per platform."""
    if sys.platform == "darwin":
        return [home / "Library" / "Application Support" / "LM Studio" / "settings.json"]
    if sys.platform == "win32":
        appdata = environ.get("APPDATA")
        return [Path(appdata) / "LM Studio" / "settings.json"] if appdata else []
    config = _path(environ["XDG_CONFIG_HOME"], home) if environ.get("XDG_CONFIG_HOME") \
        else home / ".config"
    return [config / "LM Studio" / "settings.json"]


def lm_studio_roots(environ: Mapping[str, str], home: Path) -> list[ModelRoot]:
    lm_home, why = lm_studio_home(home)
    roots = []
    for settings in [lm_home / "settings.json", *_app_settings(home, environ)]:
        folder = _downloads_folder(settings)
        if folder is not None:
            roots.append(ModelRoot(LM_STUDIO, "folders", folder,
                                   f"downloadsFolder in {settings}"))
    roots.append(ModelRoot(LM_STUDIO, "folders", lm_home / "models", why))
    roots.append(ModelRoot(LM_STUDIO, "folders", home / ".cache" / "lm-studio" / "models",
                           "before 0.3"))
    return roots


def llama_cpp_roots(environ: Mapping[str, str], home: Path) -> list[ModelRoot]:
    if environ.get("LLAMA_CACHE"):
        folder = _path(environ["LLAMA_CACHE"], home)
        return [ModelRoot(LLAMA_CPP, "hf-hub", folder, "LLAMA_CACHE"),
                ModelRoot(LLAMA_CPP, "llama.cpp", folder, "LLAMA_CACHE")]
    if sys.platform == "darwin":
        folder = home / "Library" / "Caches" / "llama.cpp"
    elif sys.platform == "win32":
        local = environ.get("LOCALAPPDATA")
        folder = Path(local) / "llama.cpp" if local else home / "AppData" / "Local" / "llama.cpp"
    elif environ.get("XDG_CACHE_HOME"):
        folder = _path(environ["XDG_CACHE_HOME"], home) / "llama.cpp"
    else:
        folder = home / ".cache" / "llama.cpp"
    return [ModelRoot(LLAMA_CPP, "llama.cpp", folder, "its flat cache before March 2026")]


def model_roots(environ: Mapping[str, str] | None = None, home: str | Path | None = None,
                system: bool = True) -> list[ModelRoot]:
    """The folders to search, each once (the same folder in the same layout is kept
    under its first source). ``environ``: the variables to read (default: this
    process's); ``home``: the user's home (default: from ``environ``); ``system``: also
    system-wide folders (the Ollama service's)."""
    env = os.environ if environ is None else environ
    h = Path(home) if home is not None else home_of(env)
    roots = [*hf_roots(env, h), *ollama_roots(env, h, system), *lm_studio_roots(env, h),
             *llama_cpp_roots(env, h)]
    seen: set[tuple[str, str]] = set()
    out = []
    for r in roots:
        key = (r.layout, os.path.normcase(os.path.abspath(r.path)))
        try:
            key = (r.layout, os.path.normcase(str(r.path.resolve())))
        except (OSError, RuntimeError):
            pass
        if key not in seen:
            seen.add(key)
            out.append(r)
    return out
