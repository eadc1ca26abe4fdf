"""The message catalog: every user-facing sentence, in zh-CN and en, keyed by message id.

Adapters and the core look sentences up here by id and the chat's language; no platform writes
its own wording.
"""

from __future__ import annotations

DEFAULT_LANGUAGE = "zh-CN"
LANGUAGES = ("zh-CN", "en")

_CATALOG: dict[str, tuple[str, str]] = {
    # key: (zh-CN, en)
    "type.single": ("单选题", "Single choice"),
    "type.multi": ("多选题", "Multiple choice"),
    "type.judge": ("判断题", "True or false"),
    "type.fill": ("填空题", "Fill in the blank"),
    "type.short": ("简答题", "Short answer"),
    "kind.practice": ("练习", "Practice"),
    "kind.daily": ("每日一题", "Daily question"),
    "kind.contest": ("竞赛", "Contest"),
    "judge.true": ("对", "True"),
    "judge.false": ("错", "False"),
    "question.header": (
        "{kind} · 第{number}题 · {qtype} · {points}分",
        "{kind} · Q{number} · {qtype} · {points} pt",
    ),
    "question.contest_position": ("第 {n}/{total} 题", "Question {n} of {total}"),
    "question.deadline": ("截止时间：{when}", "Deadline: {when}"),
    "question.timer": ("限时 {seconds} 秒", "{seconds} seconds"),
    "question.how_single": ("回复选项字母作答，例如 B", "Reply with a letter, e.g. B"),
    "question.how_multi": (
        "回复所有正确选项，例如 ACD",
        "Reply with every correct letter, e.g. ACD",
    ),
    "question.how_judge": ("回复 对 或 错", "Reply True or False (对/错)"),
    "question.how_fill": ("直接回复答案", "Reply with your answer"),
    "question.how_short": (
        "写下你的回答，提交后可看参考答案并自评",
        "Write your answer; then see the reference and grade yourself",
    ),
    "question.answers_so_far": ("已有 {n} 人作答", "{n} answered so far"),
    "button.submit": ("提交", "Submit"),
    "button.answer": ("作答", "Answer"),
    "button.self_full": ("全对", "Got it all"),
    "button.self_half": ("部分", "Partly"),
    "button.self_zero": ("不会", "Missed it"),
    "modal.title": ("作答", "Your answer"),
    "modal.label": ("答案", "Answer"),
    "receipt.recorded": (
        "已记录：{choice}。截止后公布答案。",
        "Recorded: {choice}. The answer is revealed at the deadline.",
    ),
    "receipt.changed": (
        "已改为：{choice}。截止后公布答案。",
        "Changed to: {choice}. The answer is revealed at the deadline.",
    ),
    "receipt.duplicate": (
        "你已作答（{choice}），只计第一次。",
        "You already answered ({choice}); only the first answer counts.",
    ),
    "receipt.closed": ("本题已结束。", "This question is closed."),
    "receipt.invalid": ("无法识别的答案：{detail}", "Couldn't read that answer: {detail}"),
    "receipt.correct": ("✅ 正确！+{points}分", "✅ Correct! +{points} pt"),
    "receipt.partial": ("🟡 部分正确，+{points}分", "🟡 Partly right, +{points} pt"),
    "receipt.wrong": ("❌ 错误。", "❌ Wrong."),
    "receipt.pending": (
        "已记录你的回答。请对照参考答案自评：",
        "Answer recorded. Compare with the reference and grade yourself:",
    ),
    "receipt.self_graded": (
        "已自评：{verdict}，+{points}分",
        "Self-graded: {verdict}, +{points} pt",
    ),
    "receipt.your_answer": ("你的答案：{choice}", "Your answer: {choice}"),
    "verdict.correct": ("全对", "correct"),
    "verdict.partial": ("部分", "partly right"),
    "verdict.wrong": ("不会", "wrong"),
    "reveal.title": ("答案揭晓", "Answer revealed"),
    "reveal.late": (
        "（机器人离线期间已过截止时间，现补发）",
        "(the deadline passed while the bot was offline)",
    ),
    "reveal.correct": ("正确答案：{answer}", "Correct answer: {answer}"),
    "reveal.reference": ("参考答案：{answer}", "Reference answer: {answer}"),
    "reveal.key_points": ("要点：", "Key points:"),
    "reveal.explanation": ("解析：{text}", "Explanation: {text}"),
    "reveal.counts": ("作答分布：{counts}（共 {total} 人）", "Answers: {counts} ({total} in all)"),
    "reveal.no_answers": ("无人作答。", "Nobody answered."),
    "reveal.right": ("答对的有：{names}", "Right: {names}"),
    "reveal.right_more": ("等 {n} 人", "and {n} more"),
    "reveal.nobody_right": ("无人答对。", "Nobody got it right."),
    "reveal.streaks": ("连续答对：{streaks}", "Streaks: {streaks}"),
    "leaderboard.title.all": ("排行榜（总榜）", "Leaderboard (all time)"),
    "leaderboard.title.week": ("排行榜（本周）", "Leaderboard (this week)"),
    "leaderboard.title.month": ("排行榜（本月）", "Leaderboard (this month)"),
    "leaderboard.guild": ("全服", "server-wide"),
    "leaderboard.row": (
        "{rank}. {name} — {points}分（{correct}/{answers}）",
        "{rank}. {name} — {points} pt ({correct}/{answers})",
    ),
    "leaderboard.own": ("你的排名：{rank}. {points}分", "Your rank: {rank}. {points} pt"),
    "leaderboard.empty": ("还没有人得分。", "No scores yet."),
    "stats.title": ("{name} 的学习统计", "Stats for {name}"),
    "stats.body": (
        "作答 {answers} 题，答对 {correct} 题（正确率 {accuracy}），得分 {points}",
        "{answers} answered, {correct} right ({accuracy}), {points} pt",
    ),
    "stats.rank": ("本群排名：第 {rank} 名", "Rank here: #{rank}"),
    "stats.streak": (
        "每日一题连续答对 {streak} 天（最长 {best} 天）",
        "Daily streak: {streak} (best {best})",
    ),
    "streak.body": (
        "🔥 每日一题连续答对 {streak} 天，最长 {best} 天",
        "🔥 Daily streak: {streak} days, best {best}",
    ),
    "error.no_questions": ("题库中没有题目。", "The bank has no questions."),
    "error.no_questions_for": ("题库中没有符合条件的题目（{filter}）。", "No questions in the bank match {filter}."),
    "error.unknown_bank": (
        "未知题库：{bank}。可用：{banks}",
        "Unknown bank: {bank}. Available: {banks}",
    ),
    "error.not_admin": ("只有管理员可以使用此命令。", "Only admins can use this command."),
    "error.no_round": (
        "当前没有进行中的题目，发送 /quiz 开始。",
        "No open question; send /quiz to get one.",
    ),
    "error.unknown_command": (
        "未知命令：{command}。发送 /help 查看帮助。",
        "Unknown command: {command}. Send /help for help.",
    ),
    "error.bad_args": ("参数有误：{detail}", "Bad arguments: {detail}"),
    "error.internal": ("出错了，请稍后再试。", "Something went wrong; please try again."),
    "error.rate_limited": (
        "操作太频繁，请 {seconds} 秒后再试。",
        "Too fast; try again in {seconds} s.",
    ),
    "contest.already_running": ("本群已有竞赛在进行，先用 /contest stop 结束它。", "A contest is already running here; /contest stop ends it."),
    "contest.started": ("竞赛开始：共 {n} 题，每题 {seconds} 秒。答得越快分越高！", "Contest started: {n} questions, {seconds} s each. Faster answers score more!"),
    "contest.not_running": ("当前没有进行中的竞赛。", "No contest is running."),
    "contest.status": ("竞赛进行中：第 {position}/{total} 题，每题 {seconds} 秒，{players} 名选手。", "Contest running: question {position} of {total}, {seconds} s each, {players} players."),
    "contest.status_done": ("最近一次竞赛已结束：{total} 题，{players} 名选手。", "The last contest is over: {total} questions, {players} players."),
    "standings.title": ("当前排名（{position}/{total}）", "Standings after {position} of {total}"),
    "standings.row": ("{rank}. {name} — {points}分", "{rank}. {name} — {points}"),
    "standings.moved": ("↑{n}", "↑{n}"),
    "standings.final": ("🏆 竞赛结束", "🏆 The contest is over"),
    "standings.stopped": ("🏁 竞赛已提前结束（{position}/{total} 题）", "🏁 The contest was stopped early ({position} of {total} questions)"),
    "standings.final_row": ("{rank}. {name} — {points}分，答对 {correct}/{total}（{accuracy}）", "{rank}. {name} — {points}, {correct}/{total} right ({accuracy})"),
    "standings.empty": ("没有人参加。", "Nobody played."),
    "daily.set": ("每日一题已设置：{schedule}。下次发布：{next}", "Daily question set: {schedule}. Next: {next}"),
    "daily.show": ("每日一题：{schedule}。下次发布：{next}", "Daily question: {schedule}. Next: {next}"),
    "daily.schedule": ("{days} {time}（{timezone}）发布，{deadline}后揭晓答案{tag}", "{days} at {time} ({timezone}), answer revealed after {deadline}{tag}"),
    "daily.schedule_tag": ("，标签：{tag}", ", tag: {tag}"),
    "daily.every_day": ("每天", "every day"),
    "daily.off": ("每日一题已关闭。", "The daily question is off."),
    "daily.disabled": ("每日一题已关闭（原定 {time}）。", "The daily question is off (was {time})."),
    "daily.none": ("尚未设置每日一题，用 /daily HH:MM 设置。", "No daily question yet; set one with /daily HH:MM."),
    "duration.hours": ("{n} 小时", "{n} h"),
    "duration.minutes": ("{n} 分钟", "{n} min"),
    "duration.seconds": ("{n} 秒", "{n} s"),
    "weekday.0": ("周一", "Mon"),
    "weekday.1": ("周二", "Tue"),
    "weekday.2": ("周三", "Wed"),
    "weekday.3": ("周四", "Thu"),
    "weekday.4": ("周五", "Fri"),
    "weekday.5": ("周六", "Sat"),
    "weekday.6": ("周日", "Sun"),
    "help.console_schedule": (
        "/daily HH:MM [截止时长，如 12h] · /daily off · /daily · /contest start [题数] [秒数] · /contest stop · /contest status",
        "/daily HH:MM [deadline, e.g. 12h] · /daily off · /daily · /contest start [n] [seconds] · /contest stop · /contest status",
    ),
    "review.none": ("还没有错题可复习，先去 /quiz 练习吧。", "No mistakes to review yet; practise with /quiz first."),
    "bank.using": ("本群题库：{title}（{count} 题）", "Bank: {title} ({count} questions)"),
    "bank.list_row": ("{id} — {title}（{count} 题）", "{id} — {title} ({count} questions)"),
    "lang.set": ("语言已设为中文。", "Language set to English."),
    "lang.set_guild": ("本服务器的语言已设为中文。", "This server's language is now English."),
    "console.welcome": (
        "studybot 控制台 · 题库：{title}（{count} 题）。发送 /help 查看命令。",
        "studybot console · bank: {title} ({count} questions). Send /help for commands.",
    ),
    "console.bye": ("再见！", "Bye!"),
    "help.console": (
        "/quiz [标签] 出一道题 · 直接回复字母或文字作答 · /review 复习错题 · /leaderboard [week|month] 排行榜 · "
        "/stats 统计 · /tags 标签 · /lang zh|en 语言 · /daily HH:MM 每日一题 · /contest start 竞赛 · /quit 退出",
        "/quiz [tag] ask a question · reply with letter(s) or text to answer · /review your mistakes · "
        "/leaderboard [week|month] · /stats · /tags · /lang zh|en · /daily HH:MM · /contest start · /quit",
    ),
    "help.tags": ("可用标签：{tags}", "Tags: {tags}"),
    # Telegram: welcome, help, command menus (descriptions only), timezone, selection toasts, language buttons
    "tg.welcome": ("欢迎使用 studybot！在这里练习「{title}」（{count} 题）：/quiz 出一道题，/help 查看全部命令。请选择语言：", "Welcome to studybot! Practise “{title}” ({count} questions) here: /quiz for a question, /help for every command. Choose a language:"),
    "tg.help_private": ("/quiz [标签|题型] 出一道题，点按钮或直接发送答案作答 · /review 复习错题 · /daily HH:MM [截止，如 12h] 个人每日一题 · /daily off 关闭 · /tz 地区/城市 设置时区 · /stats 统计 · /streak 连续天数 · /lang zh|en 语言 · /bank list 题库", "/quiz [tag|type] for a question; answer with the buttons or by sending your answer · /review your mistakes · /daily HH:MM [deadline, e.g. 12h] your own daily question · /daily off · /tz Area/City your timezone · /stats · /streak · /lang zh|en · /bank list"),
    "tg.help_group": ("/quiz [标签|题型] 出一道题，点按钮作答；填空题和简答题请回复题目消息作答 · /leaderboard [week|month] 排行榜 · /stats 统计 · /streak 连续天数。管理员：/daily set HH:MM [截止] [标签] · /daily off · /daily show · /contest start [题数] [秒数] · /contest stop · /contest status · /bank list · /bank use <id> · /lang zh|en · /tz 地区/城市", "/quiz [tag|type] for a question; answer with the buttons, or reply to the question message for fill-in and short answers · /leaderboard [week|month] · /stats · /streak. Admins: /daily set HH:MM [deadline] [tag] · /daily off · /daily show · /contest start [questions] [seconds] · /contest stop · /contest status · /bank list · /bank use <id> · /lang zh|en · /tz Area/City"),
    "tg.cmd.start": ("开始使用，选择语言", "Start and choose a language"),
    "tg.cmd.quiz": ("出一道练习题", "Get a practice question"),
    "tg.cmd.review": ("复习答错的题", "Review questions you got wrong"),
    "tg.cmd.daily": ("设置、查看或关闭每日一题", "Set, show or turn off the daily question"),
    "tg.cmd.tz": ("设置时区，如 Asia/Shanghai", "Set the timezone, e.g. Asia/Shanghai"),
    "tg.cmd.stats": ("查看学习统计", "Show study stats"),
    "tg.cmd.streak": ("每日一题连续答对天数", "Show the daily streak"),
    "tg.cmd.lang": ("切换语言：zh 或 en", "Switch language: zh or en"),
    "tg.cmd.help": ("查看全部命令", "Show every command"),
    "tg.cmd.leaderboard": ("排行榜（week、month、all）", "Leaderboard (week, month, all)"),
    "tg.cmd.contest": ("限时竞赛：start、stop、status", "Timed contest: start, stop, status"),
    "tg.cmd.bank": ("题库：list、use", "Question banks: list, use"),
    "tg.tz_set": ("时区已设为 {timezone}。", "Timezone set to {timezone}."),
    "tg.selected": ("已选：{choice}。选好后点“提交”。", "Selected: {choice}. Press Submit when done."),
    "tg.selected_none": ("还没有选择任何选项。", "Nothing selected yet."),
    "tg.lang_name": ("中文", "English"),
    # Discord: multi-choice selections, reaction mode, slash command names (en = the command itself) and descriptions
    "select.current": ("已选：{choice}。选好后点“提交”。", "Selected: {choice}. Press Submit when done."),
    "select.none": ("还没有选择任何选项。", "Nothing selected yet."),
    "question.how_react": ("点下方表情作答，只计第一次。", "React below to answer; only your first reaction counts."),
    "cmd.quiz.name": ("练习", "quiz"),
    "cmd.quiz.desc": ("在本频道出一道练习题", "Get a practice question in this channel"),
    "cmd.daily.name": ("每日一题", "daily"),
    "cmd.daily.desc": ("本频道的每日一题（管理员）", "This channel's daily question (admins)"),
    "cmd.daily.set.name": ("设置", "set"),
    "cmd.daily.set.desc": ("设置每日一题的时间、截止时长、标签和作答方式", "Set the daily question's time, deadline, tag and answer mode"),
    "cmd.daily.off.name": ("关闭", "off"),
    "cmd.daily.off.desc": ("关闭每日一题", "Turn the daily question off"),
    "cmd.daily.show.name": ("查看", "show"),
    "cmd.daily.show.desc": ("查看每日一题的设置", "Show the daily question's settings"),
    "cmd.contest.name": ("竞赛", "contest"),
    "cmd.contest.desc": ("本频道的限时竞赛（管理员）", "Timed contests in this channel (admins)"),
    "cmd.contest.start.name": ("开始", "start"),
    "cmd.contest.start.desc": ("开始一场竞赛", "Start a contest"),
    "cmd.contest.stop.name": ("结束", "stop"),
    "cmd.contest.stop.desc": ("提前结束竞赛", "Stop the contest early"),
    "cmd.contest.status.name": ("状态", "status"),
    "cmd.contest.status.desc": ("竞赛进行到哪里了", "Where the contest stands"),
    "cmd.leaderboard.name": ("排行榜", "leaderboard"),
    "cmd.leaderboard.desc": ("查看排行榜", "Show the leaderboard"),
    "cmd.stats.name": ("统计", "stats"),
    "cmd.stats.desc": ("查看学习统计", "Show study stats"),
    "cmd.streak.name": ("连续", "streak"),
    "cmd.streak.desc": ("查看每日一题连续答对天数", "Show your daily streak"),
    "cmd.bank.name": ("题库", "bank"),
    "cmd.bank.desc": ("题库", "Question banks"),
    "cmd.bank.list.name": ("列表", "list"),
    "cmd.bank.list.desc": ("列出可用题库", "List the available banks"),
    "cmd.bank.use.name": ("使用", "use"),
    "cmd.bank.use.desc": ("本频道改用某个题库（管理员）", "Use a bank in this channel (admins)"),
    "cmd.lang.name": ("语言", "lang"),
    "cmd.lang.desc": ("设置本频道的语言（管理员）", "Set this channel's language (admins)"),
    "cmd.opt.tag.name": ("标签", "tag"),
    "cmd.opt.tag.desc": ("只出带此标签的题", "Only questions with this tag"),
    "cmd.opt.type.name": ("题型", "type"),
    "cmd.opt.type.desc": ("只出此题型", "Only this question type"),
    "cmd.opt.time.name": ("时间", "time"),
    "cmd.opt.time.desc": ("发布时间 HH:MM（本频道时区）", "Posting time, HH:MM (the channel's timezone)"),
    "cmd.opt.timezone.name": ("时区", "timezone"),
    "cmd.opt.timezone.desc": ("IANA 时区，如 Asia/Shanghai", "IANA timezone, e.g. Asia/Shanghai"),
    "cmd.opt.deadline.name": ("截止", "deadline"),
    "cmd.opt.deadline.desc": ("多久后揭晓答案，如 12h、30m", "When the answer is revealed, e.g. 12h or 30m"),
    "cmd.opt.mode.name": ("方式", "mode"),
    "cmd.opt.mode.desc": ("按钮或表情作答", "Answer with buttons or reactions"),
    "cmd.opt.questions.name": ("题数", "questions"),
    "cmd.opt.questions.desc": ("题目数量", "Number of questions"),
    "cmd.opt.seconds.name": ("秒数", "seconds"),
    "cmd.opt.seconds.desc": ("每题限时秒数", "Seconds per question"),
    "cmd.opt.window.name": ("时段", "window"),
    "cmd.opt.window.desc": ("总榜、本周、本月或本次竞赛", "All time, this week, this month or the contest"),
    "cmd.opt.scope.name": ("范围", "scope"),
    "cmd.opt.scope.desc": ("本频道或全服", "This channel or the whole server"),
    "cmd.opt.user.name": ("成员", "user"),
    "cmd.opt.user.desc": ("查看谁的统计", "Whose stats"),
    "cmd.opt.bank.name": ("题库", "bank"),
    "cmd.opt.bank.desc": ("题库 id（见 /bank list）", "Bank id (see /bank list)"),
    "cmd.opt.language.name": ("语言", "language"),
    "cmd.opt.language.desc": ("中文或英文", "Chinese or English"),
    "cmd.choice.buttons": ("按钮", "Buttons"),
    "cmd.choice.reactions": ("表情回应", "Reactions"),
    "cmd.choice.all": ("总榜", "All time"),
    "cmd.choice.week": ("本周", "This week"),
    "cmd.choice.month": ("本月", "This month"),
    "cmd.choice.contest": ("本次竞赛", "This contest"),
    "cmd.choice.channel": ("本频道", "This channel"),
    "cmd.choice.server": ("全服", "Whole server"),
    # Start-up: one line to the operator on stderr, naming the cause and what to do
    "startup.data_unwritable": ("无法写入数据目录 {path}（{detail}）。请让运行 studybot 的用户可以写这个目录，或用 STUDYBOT_DATA_DIR / data_dir 换一个目录。", "cannot write to the data directory {path} ({detail}). Make it writable for the user running studybot, or choose another with STUDYBOT_DATA_DIR / data_dir."),
    "startup.disk_full": ("无法写入数据库 {path}：磁盘已满或写入出错（{detail}）。请腾出磁盘空间（或检查磁盘）后再启动。", "cannot write the database {path}: the disk is full or failing ({detail}). Free some space (or check the disk), then start again."),
    "startup.db_damaged": ("数据库 {path} 已损坏（{detail}）。请从备份恢复，或把它移走后重新启动（将从空数据库开始）。", "the database {path} is damaged ({detail}). Restore it from a backup, or move it aside and start again with an empty one."),
    "startup.db_newer": ("数据库 {path} 由更新版本的 studybot 写入（{detail}）。请升级 studybot。", "the database {path} was written by a newer studybot ({detail}). Upgrade studybot."),
    "startup.token_rejected": ("{platform} 拒绝了 {variable}（{detail}）。请重新复制机器人令牌（{where}）并设置 {variable}。", "{platform} rejected {variable} ({detail}). Copy the bot token again ({where}) and set {variable}."),
    "startup.token_where.discord": ("Discord 开发者门户 → 你的应用 → Bot → Reset Token", "Discord Developer Portal → your application → Bot → Reset Token"),
    "startup.token_where.telegram": ("在 @BotFather 中发送 /token", "send /token to @BotFather"),
    "startup.unreachable": ("无法连接 {platform}（{address}：{detail}）。请检查网络、代理或 {variable}。", "cannot reach {platform} at {address} ({detail}). Check the network, a proxy, or {variable}."),
    "startup.no_token": ("没有可运行的内容：环境变量中没有 DISCORD_TOKEN 或 TELEGRAM_TOKEN，且标准输入不是终端、也没有内容，控制台无从读取。请设置令牌（如 docker run -e TELEGRAM_TOKEN=…），或在终端中运行以使用控制台（docker run -it）。", "nothing to run: neither DISCORD_TOKEN nor TELEGRAM_TOKEN is set, and stdin is not a terminal and has no input for the console. Set a token (e.g. docker run -e TELEGRAM_TOKEN=…), or run in a terminal (docker run -it) to use the console."),
    "startup.near_miss": ("已设置环境变量 {name}，但 studybot 不读取它；你是不是想设置 {expected}？", "{name} is set, but studybot does not read it; did you mean {expected}?"),
    "startup.console_no_token": ("未设置 DISCORD_TOKEN 或 TELEGRAM_TOKEN：启动控制台。", "neither DISCORD_TOKEN nor TELEGRAM_TOKEN is set: starting the console."),
}


def normalize_language(language: str | None) -> str:
    if not language:
        return DEFAULT_LANGUAGE
    low = language.lower()
    if low.startswith("zh"):
        return "zh-CN"
    if low.startswith("en"):
        return "en"
    return DEFAULT_LANGUAGE


def t(language: str, key: str, **params: object) -> str:
    """The sentence `key` in `language` (zh-CN when unknown), with params filled in."""
    try:
        zh, en = _CATALOG[key]
    except KeyError:
        raise KeyError(f"message id {key!r} is not in the catalog") from None
    template = en if normalize_language(language) == "en" else zh
    return template.format(**params) if params else template


def keys() -> tuple[str, ...]:
    return tuple(_CATALOG)


def format_points(points: float) -> str:
    return f"{points:g}"
