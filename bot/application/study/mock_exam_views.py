"""What a mock exam shows: the item on screen, the answer sheet, the report with its sections and wrong
items, and the review of one item."""

from __future__ import annotations

from typing import Any

from bot.application.presenting import (
    correct_label,
    correct_tokens,
    key_point_fields,
    option_views,
    response_label,
)
from bot.application.study.mock_exam_parts import MockParts
from bot.domain import option_shuffle as shuffle
from bot.domain.doubts import explanation_text
from bot.domain.mock_exam_records import Mock, MockAnswer, MockState
from bot.domain.question_types import TYPES
from bot.domain.questions import Question
from bot.locales.i18n import bank_text
from bot.views.study import (
    MockIntro,
    MockQuestionView,
    MockReportView,
    MockReviewView,
    MockSheetView,
    PendingShort,
    SheetRow,
    WrongItem,
)


class MockViews(MockParts):
    async def sheet_of(self, mock: Mock, language: str) -> MockSheetView:
        mock = await self.store.get_mock(mock.id) or mock  # its position now
        answers = await self.store.answers(mock.id)
        rows = []
        for number, section in enumerate(mock.sections):
            items = tuple(
                (
                    i + 1,
                    answers.get(i, MockAnswer(i)).response is not None,
                    answers.get(i, MockAnswer(i)).flagged,
                )
                for i, item in enumerate(mock.items)
                if item.section == number
            )
            rows.append(SheetRow(section.type, items))
        answered = sum(1 for a in answers.values() if a.response is not None)
        return MockSheetView(
            language, tuple(rows), answered, len(mock.items), self._remaining(mock), mock.id,
            mock.position + 1,
        )  # fmt: skip

    def _review(
        self, mock: Mock, index: int, entry: MockAnswer, wrong: tuple[int, ...], language: str
    ) -> MockReviewView:
        question = self._question(mock, index)
        order = mock.items[index].order
        seen = shuffle.shown(question, order)
        given = (
            response_label(seen, shuffle.to_shown(question, order, entry.response), language)
            if entry.response is not None
            else ""
        )
        return MockReviewView(
            language,
            mock.id,
            index + 1,
            len(mock.items),
            question.type,
            bank_text(language, question.stem),
            tuple((letter, bank_text(language, text)) for letter, text in seen.options),
            correct_tokens(seen) if seen.options else (),
            given,
            correct_label(seen, language),
            explanation_text(language, question),
            entry.verdict,
            bank_text(language, question.answer[0]) if entry.verdict == "pending" else "",
            tuple(bank_text(language, p) for p in question.key_points) if entry.verdict == "pending" else (),
            wrong,
            **self._key_point_fields(mock, index, question, entry, language),
            bank_id=mock.bank_id,
            images=question.images,
            question_id=question.id,
        )

    @staticmethod
    def _key_point_fields(
        mock: Mock, index: int, question: Question, entry: MockAnswer, language: str
    ) -> dict[str, Any]:
        """A pending short answer's covered and missed key points, scored in this mock's points."""
        if entry.verdict != "pending" or entry.response is None:
            return {}
        fields = key_point_fields(question, entry.response, language)
        if fields:
            fields |= {"points": (entry.fraction or 0.0) * mock.points(index), "out_of": mock.points(index)}
        return fields

    async def _view(
        self,
        mock: Mock,
        index: int,
        language: str,
        *,
        intro: bool = False,
        resumed: bool = False,
        saved: int | None = None,
    ) -> MockQuestionView:
        question = self._question(mock, index)
        self._shown[mock.id] = self.clock.now()
        order = mock.items[index].order
        seen = shuffle.shown(question, order)
        entry = (await self.store.answers(mock.id)).get(index, MockAnswer(index))
        given = shuffle.to_shown(question, order, entry.response) if entry.response is not None else None
        bank = self._bank(mock)
        shown_intro = None
        if intro:
            shown_intro = MockIntro(
                bank_text(language, bank.title),
                tuple((s.type, s.count, s.points) for s in mock.sections),
                mock.total,
                round((mock.ends_at - mock.started_at).total_seconds() / 60),
                mock.pass_mark,
                resumed,
            )
        return MockQuestionView(
            language,
            index + 1,
            len(mock.items),
            question.type,
            TYPES[question.type].input_kind,
            mock.points(index),
            bank_text(language, question.stem),
            tuple((letter, bank_text(language, text)) for letter, text in seen.options),
            response_label(seen, given, language) if given is not None else None,
            entry.flagged,
            self._remaining(mock),
            shown_intro,
            saved,
            mock.id,
            tuple((o.token, o.label) for o in option_views(seen, language)),
            TYPES[seen.type].response_tokens(given) if given else (),
            mock.bank_id,
            question.images,
        )

    async def _report(self, mock: Mock, language: str, *, timed_out: bool = False) -> MockReportView:
        answers = await self.store.answers(mock.id)
        per_section = [0.0] * len(mock.sections)
        wrong: list[WrongItem] = []
        pending: list[PendingShort] = []
        for index, _item in enumerate(mock.items):
            question = self._question(mock, index)
            entry = answers.get(index, MockAnswer(index))
            per_section[mock.items[index].section] += (entry.fraction or 0.0) * mock.points(index)
            order = mock.items[index].order
            seen = shuffle.shown(question, order)
            shown_response = shuffle.to_shown(question, order, entry.response or "")
            given = response_label(seen, shown_response, language) if entry.response is not None else ""
            if entry.verdict == "pending":
                pending.append(
                    PendingShort(
                        index + 1,
                        bank_text(language, question.stem),
                        given,
                        bank_text(language, question.answer[0]),
                        tuple(bank_text(language, p) for p in question.key_points),
                    )
                )
            elif entry.verdict != "correct":
                wrong.append(
                    WrongItem(
                        index + 1,
                        bank_text(language, question.stem),
                        given,
                        correct_label(seen, language),
                        explanation_text(language, question),
                    )
                )
        score = mock.score or 0.0
        ended = mock.submitted_at or self.clock.now()
        used = int((min(ended, mock.ends_at) - mock.started_at).total_seconds())
        return MockReportView(
            language,
            score,
            mock.total,
            mock.pass_mark,
            None if mock.state is MockState.GRADING else score >= mock.pass_mark,
            tuple(
                (s.type, round(per_section[i], 2), s.count * s.points) for i, s in enumerate(mock.sections)
            ),
            used,
            tuple(wrong),
            tuple(pending),
            timed_out,
            mock.id,
        )
