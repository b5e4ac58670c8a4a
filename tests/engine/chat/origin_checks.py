"""What every code renderer's oracle test asks of the tokens' origins."""
from __future__ import annotations


def assert_token_roles(got, messages) -> None:
    """No typed spelling became a control token; a token no message wrote is the
    renderer's (scaffolding or a special token); every other is its message's role's."""
    assert not any(t.injected for t in got.tokens)
    for t in got.tokens:
        if t.message is None:
            assert t.role == "template" and t.origin in ("scaffolding", "special")
        else:
            assert t.role == messages[t.message]["role"] and not t.special
