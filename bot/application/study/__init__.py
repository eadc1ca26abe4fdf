"""The study tools for one person: practice and drilling, mock exams, review, the mistake
notebook, favourites, reminders and error reports (`use_cases` runs their commands). Fed by
answers already committed, whatever their mode.

Part of the application layer: may import every package of the core.
"""
