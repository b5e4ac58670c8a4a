"""The chat view: a conversation as the model sees it (chat_view.py), its editor
(conversation_editor.py)."""
