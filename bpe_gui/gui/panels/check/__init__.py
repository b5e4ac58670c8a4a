"""Check my BPE's panel: pick a learner's result and a corpus, see the first merge where
they part and why, step through both lists side by side, and check an encoder's ids.

``check_panel.CheckPanel`` is the whole of it (the dialog of dialogs/check_dialog.py
holds one); ``merges_view`` and ``encode_view`` are its two tabs, ``agreement_strip``
the timeline that marks where the two lists agree and part.
"""
