"""Study tools for one person: spaced repetition, the mistake notebook, favourites, mock exams
and error reports. Everything here is fed by answers already committed, whatever their mode."""
