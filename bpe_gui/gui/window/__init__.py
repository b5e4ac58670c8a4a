"""The main window's parts, one module per concern (MainWindow in main_window.py mixes
them): docks (panels, default and remembered layout), actions (actions, menus,
shortcuts, small dialogs), status (status bar, title, error boxes), files (open, drag
and drop, unsaved edits), sessions (session files, autosave, what opens at start) and
theme."""
