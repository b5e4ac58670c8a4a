"""The two symbols of character-level tokenizers that are no characters of the text: the
end-of-word marker and the unknown character (a leaf: the trainer and the export name
them without importing a tokenizer)."""
from __future__ import annotations

EOW = b"</w>"
UNK = b"<unk>"
