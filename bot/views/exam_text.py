"""The exam plan's wording (`/exam`, `/settings`, the reminder's plan, the countdown in `/stats`):
every sentence from the catalogs, numbers with their plurals."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bot.domain.exam_plan import DayPlan
from bot.domain.exam_records import ExamDate, LearnerSettings
from bot.domain.questions import Bank
from bot.locales.i18n import t
from bot.views.progress import LocalDays, day_label

SHOWN_NUMBERS = 12  # the most runs of item numbers a plan names


@dataclass(frozen=True, slots=True)
class ExamToday:
    """A learner's exam and where they stand today."""

    exam: ExamDate
    days: LocalDays
    days_to_exam: int  # 0 on the exam day, negative after it
    plan: DayPlan | None  # None on the exam day and after it


def numbers_text(language: str, numbers: Sequence[int]) -> str:
    """Item numbers, runs joined (1–4, 7, 9–10), the first SHOWN_NUMBERS runs and "…"."""
    runs: list[tuple[int, int]] = []
    for number in sorted(numbers):
        if runs and number == runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], number)
        else:
            runs.append((number, number))
    parts = [str(a) if a == b else f"{a}–{b}" for a, b in runs[:SHOWN_NUMBERS]]
    text = t(language, "exam.list_separator").join(parts)
    return text + ("…" if len(runs) > SHOWN_NUMBERS else "")


def _minutes(value: float) -> int:
    return max(1, round(value)) if value > 0 else 0


def plan_lines(language: str, bank: Bank, plan: DayPlan) -> list[str]:
    """Today's plan, one line a part."""
    number = {q.id: q.number for q in bank.questions}
    lines = [t(language, "exam.plan_title", count=_minutes(plan.minutes))]
    if plan.new:
        lines.append("  " + t(language, "exam.plan_new", count=len(plan.new),
                              numbers=numbers_text(language, [number[q] for q in plan.new])))  # fmt: skip
    elif plan.unseen == 0:
        lines.append("  " + t(language, "exam.plan_all_seen"))
    else:
        lines.append("  " + t(language, "exam.plan_new_done"))
    # "Due today" as /stats and /review count it; when the plan takes only some of those cards
    # (the ones that help most on exam day, or what the time allows), its line says so.
    if plan.reviews:
        early = [number[r.question_id] for r in plan.reviews if not r.due]
        if plan.due_planned < plan.due_today:
            lines.append("  " + t(language, "exam.plan_reviews_some", count=len(plan.reviews),
                                  due=plan.due_today))  # fmt: skip
        else:
            lines.append("  " + t(language, "exam.plan_reviews", count=len(plan.reviews)))
        if early:
            lines.append("  " + t(language, "exam.plan_early", count=len(early),
                                  numbers=numbers_text(language, early)))  # fmt: skip
        later = sum(1 for r in plan.reviews if r.later)
        if later:  # /review says "no card due now" until they come due
            lines.append("  " + t(language, "exam.plan_later", count=later))
    elif plan.due_today:
        lines.append("  " + t(language, "exam.plan_no_reviews_due", count=plan.due_today))
    else:
        lines.append("  " + t(language, "exam.plan_no_reviews"))
    before, after = f"{100 * plan.recall:.0f}%", f"{100 * plan.recall_after:.0f}%"
    if plan.reviews and after != before:
        lines.append("  " + t(language, "exam.plan_recall", before=before, after=after))
    elif plan.recall > 0:
        lines.append("  " + t(language, "exam.plan_recall_now", before=before))
    if plan.short and plan.budget is not None:
        lines.append(t(language, "exam.plan_short", count=_minutes(plan.needed), budget=_minutes(plan.budget),
                       quota=plan.to_see, unseen=plan.unseen))  # fmt: skip
    return lines


def countdown(language: str, days_to_exam: int) -> str:
    if days_to_exam == 0:
        return t(language, "exam.countdown_today")
    if days_to_exam < 0:
        return t(language, "exam.countdown_past")
    return t(language, "exam.countdown", count=days_to_exam)


def exam_text(language: str, bank: Bank, found: ExamToday) -> str:
    exam = found.exam
    head = t(
        language,
        "exam.date",
        date=day_label(language, exam.on),
        countdown=countdown(language, found.days_to_exam),
    )
    lines = [head]
    if exam.minutes is not None:
        lines.append(t(language, "exam.budget", count=exam.minutes))
    if found.plan is None:
        return "\n".join(lines)
    return "\n".join(lines + plan_lines(language, bank, found.plan))


def settings_text(language: str, settings: LearnerSettings) -> str:
    if settings.quiet_from and settings.quiet_until:
        quiet = t(language, "settings.quiet", start=settings.quiet_from, until=settings.quiet_until)
    else:
        quiet = t(language, "settings.quiet_none")
    return "\n".join([quiet, t(language, "settings.day_start", time=settings.day_start)])
