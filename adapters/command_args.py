"""Arguments of the text commands the console and Telegram share, read once for both."""

from __future__ import annotations

from bot.quiz import QuizError


def contest_start_numbers(args: list[str], usage: str) -> tuple[int | None, int | None]:
    """`/contest start [N] [SECONDS]`, given the words after "start": the questions and seconds
    asked for, None for those left out (the core's defaults)."""
    try:
        numbers = [int(a) for a in args[:2]]
    except ValueError:
        raise QuizError("error.bad_args", detail=usage) from None
    return (numbers[0] if numbers else None, numbers[1] if len(numbers) > 1 else None)
