"""The main window (main_window.py) and its parts, one module per concern: docks (panels,
default and remembered layout; layout_fit), actions (actions, menus, shortcuts, small
dialogs), status (status bar, title, error boxes), files (open, drag and drop, unsaved
edits), sessions (session files, autosave, what opens at start), theme_menu and
training_flow (the Train toolbar)."""
