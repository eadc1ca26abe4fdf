"""`studybot bank check --reports`: an edit to a reported item shows with its open reports;
an untouched item, or a report of another bank, does not."""

from __future__ import annotations

import dataclasses

from bot.application.app import Application
from bot.application.requests import Caller
from bot.domain.kinds import ChatKind, ChatRef, Platform, UserRef
from studybot.bank_reports import changed_reports

ANN = UserRef(Platform.CONSOLE, "10", "Ann")
ME = Caller(ChatRef(Platform.CONSOLE, "10", ChatKind.PRIVATE, title="Ann"), ANN)


async def test_a_changed_reported_item_is_listed_with_its_reports(make_app, bank):
    app = await make_app()
    layer = Application(app.quiz, app.dailies, app.contests, study=app.study)
    await layer.run_text("/quiz 1", ME)
    await layer.run_text("/report the answer should be C", ME)
    await layer.run_text("/quiz 3", ME)
    await layer.run_text("/report fine really", ME)
    reports = await app.study.reports.open_reports()
    assert changed_reports([bank], reports) == []  # nothing edited yet
    edited = dataclasses.replace(bank.questions[0], answer=("C",))
    new_bank = dataclasses.replace(bank, questions=(edited, *bank.questions[1:]))
    lines = changed_reports([new_bank], reports)
    assert lines[0] == "sample: [s-1] question 1 changed since reported; 1 open report(s)"
    assert lines[1].endswith("Ann: the answer should be C") and len(lines) == 2
    gone = dataclasses.replace(bank, questions=bank.questions[1:])
    assert changed_reports([gone], reports)[0] == "sample: [s-1] left the bank; 1 open report(s)"
