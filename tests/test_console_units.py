"""The console adapter driven in-process with StringIO, its wrapping, and the two core limits it
brought up (the answer length cap and the private-chat /quiz rate), which hold on every platform."""

from __future__ import annotations

import io

import pytest
import wcwidth

from adapters.console import ConsoleAdapter
from adapters.console.layout import wrap
from bot.application.quiz import QuizError
from bot.application.requests import Ask, SubmitAnswer
from bot.domain.kinds import ChatKind, ChatRef, Platform, UserRef

ALICE = UserRef(Platform.TELEGRAM, "1", "Alice")
PRIVATE = ChatRef(Platform.TELEGRAM, "1", ChatKind.PRIVATE)
GROUP = ChatRef(Platform.TELEGRAM, "-100", ChatKind.GROUP)


async def converse(app, script: str, **kwargs) -> str:
    out = io.StringIO()
    user = UserRef(Platform.CONSOLE, "me", "me")
    console = ConsoleAdapter(app.application, data_dir=app.config.data_dir, stdin=io.StringIO(script),
                             stdout=out, user=user, **kwargs)  # fmt: skip
    await console.run()
    return out.getvalue()


# ------------------------------------------------------------ wrapping


def test_chinese_wraps_by_display_width_with_hanging_indent_for_list_items():
    text = "• 将Q、K、V及注意力矩阵按块（tile）切分，在GPU片上共享内存（SRAM）中逐块计算"
    lines = wrap(text, 30).split("\n")
    assert len(lines) == 3
    assert all(wcwidth.width(line) <= 30 for line in lines)
    assert all(line.startswith("  ") for line in lines[1:])
    assert "".join(line.strip() for line in lines).replace("• ", "") == text.replace("• ", "")


def test_a_command_is_never_cut_after_its_slash():
    """The welcome at a 100-column terminal once ended a line in "/" and began the next with
    "help"; now the whole command goes to the next line, at every width."""
    text = (
        "欢迎使用 studybot！在这里练习「2025年高级人工智能训练师核心备考试题库」（62 题）："
        "/quiz 出一道题，/help 查看全部命令。"
    )
    for width in range(40, 101):
        lines = wrap(text, width).split("\n")
        assert all(wcwidth.width(line) <= width for line in lines)
        assert not any(line.endswith("/") for line in lines), (width, lines)
        assert "".join(lines).replace(" ", "") == text.replace(" ", "")  # a space at a break goes
    assert wrap(text, 100).split("\n")[1].startswith("/help 查看全部命令")


def test_short_lines_and_blank_lines_are_kept_and_narrow_windows_left_alone():
    text = "A. short\n\nB. also short"
    assert wrap(text, 40) == text
    long = "word " * 30
    assert wrap(long, 10) == long  # a window this narrow: better not to wrap at all


async def test_output_to_a_pipe_is_not_wrapped_and_to_a_given_width_is(make_app):
    app = await make_app()
    piped = await converse(app, "/help\n")
    assert max(len(line) for line in piped.splitlines()) > 80  # the longest help row stays one line
    wrapped = await converse(app, "/help\n", width=40)
    assert all(wcwidth.width(line) <= 40 for line in wrapped.splitlines())


# ------------------------------------------------------------ input rules


async def test_end_of_input_says_goodbye_once(make_app):
    app = await make_app()
    out = await converse(app, "/tags\n")
    assert out.rstrip().endswith("Bye!") and out.count("Bye!") == 1
    out = await converse(app, "/quit\n/tags\n")
    assert out.count("Bye!") == 1 and "Tags:" not in out


async def test_a_backslash_at_the_end_joins_the_next_line_to_the_answer(make_app):
    app = await make_app()
    out = await converse(app, "/quiz optimization\n5e\\\n-4\n")
    assert "✅ Correct!" in out
    out = await converse(app, "/quiz transformer\nit relates \\\ntokens\\\n")  # a last backslash: dropped
    assert "Compare with the reference" in out
    await app.quiz.flush()
    rows = await app.store._db.execute_fetchall("SELECT response FROM answers ORDER BY id")
    assert [r[0] for r in rows] == ["5e\n-4", "it relates\ntokens"]


# ------------------------------------------------------------ the answer cap (core)


async def test_an_answer_over_the_cap_is_refused_in_the_users_language_and_not_stored(quiz, store):
    view = await quiz.ask(Ask(PRIVATE, ALICE, tag="transformer"))
    receipt = await quiz.submit(SubmitAnswer(view.round_id, ALICE, "x" * 2001))
    assert str(receipt.status) == "invalid"
    assert receipt.detail == "the answer is too long; at most 2000 characters."
    assert await store.user_answer(view.round_id, await quiz.user_id(ALICE)) is None
    await quiz.update_settings(PRIVATE, language="zh-CN")
    receipt = await quiz.submit(SubmitAnswer(view.round_id, ALICE, "长" * 5000))
    assert receipt.detail == "答案过长（最多 2000 个字符）。"
    accepted = await quiz.submit(SubmitAnswer(view.round_id, ALICE, "x" * 2000))  # at the cap: fine
    assert accepted.verdict == "pending"


async def test_the_console_shows_the_refusal_without_echoing_the_answer(make_app):
    out = await converse(await make_app(), "/quiz optimization\n" + "5" * 50_000 + "\n/stats\n")
    assert "Couldn't read that answer: the answer is too long; at most 2000 characters." in out
    assert "5" * 100 not in out
    assert "0 answered" in out


# ------------------------------------------------------------ the /quiz rate (core)


async def test_private_chats_allow_sixty_questions_a_minute_groups_six(quiz, clock):
    for _ in range(60):
        await quiz.ask(Ask(PRIVATE, ALICE))
    with pytest.raises(QuizError) as err:
        await quiz.ask(Ask(PRIVATE, ALICE))
    assert err.value.key == "error.rate_limited"
    for _ in range(6):  # the group quota is counted apart
        await quiz.ask(Ask(GROUP, ALICE))
    with pytest.raises(QuizError):
        await quiz.ask(Ask(GROUP, ALICE))
    clock.advance(60)
    await quiz.ask(Ask(PRIVATE, ALICE))
    await quiz.ask(Ask(GROUP, ALICE))


async def test_the_limits_come_from_the_config(make_app):
    from studybot.config import QuizRateConfig

    app = await make_app(quiz_per_minute=QuizRateConfig(private=2, group=1))
    assert (app.quiz.settings.private_ask_limit, app.quiz.settings.ask_limit) == (2, 1)
    await app.quiz.ask(Ask(PRIVATE, ALICE))
    await app.quiz.ask(Ask(PRIVATE, ALICE))
    with pytest.raises(QuizError):
        await app.quiz.ask(Ask(PRIVATE, ALICE))


# ------------------------------------------------------------ files sent with a reply


async def test_files_with_a_reply_are_written_to_the_data_directory_never_over_another(make_app):
    from bot.application.replies import FileView, Reply, TextView

    app = await make_app()
    out = io.StringIO()
    console = ConsoleAdapter(app.application, data_dir=app.config.data_dir, stdin=io.StringIO(""), stdout=out)
    chart = FileView("chart.png", b"\x89PNG one", caption="Your week", image=True)
    console.show(Reply(TextView("Stats"), "en", files=(chart,)))
    console.show(Reply(TextView("Stats"), "en", files=(chart, FileView("../../outside.csv", b"a,b\n"))))
    data = app.config.data_dir.resolve()
    assert (data / "chart.png").read_bytes() == b"\x89PNG one"
    assert (data / "chart-2.png").read_bytes() == b"\x89PNG one"
    assert (data / "outside.csv").read_bytes() == b"a,b\n"  # a name is never a path
    shown = out.getvalue()
    assert f"Your week\nFile saved: {data / 'chart.png'}" in shown
    assert f"File saved: {data / 'chart-2.png'}" in shown and f"File saved: {data / 'outside.csv'}" in shown
