"""The study tools for one person: practice and drilling, mock exams, review, the mistake
notebook, favourites, reminders, error reports and the web app's admin pages for a bank's owners
(`bank_admin`); `use_cases` runs their commands. Fed by answers already committed, whatever
their mode.

Part of the application layer: may import every package of the core.
"""
