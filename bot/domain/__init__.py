"""The domain: what the exam is. Questions and banks (`questions`), one module per question type
(`question_types/`), reading a typed reply (`reading/`) and grading it (`grading`, `verdicts`),
rounds, answers and the other stored records (`records`, `kinds`), contest scoring (`kahoot`),
leaderboard windows, daily times, FSRS cards (`spaced`, `study_records`), mock-exam papers
(`paper`, `mock_exam_records`, `option_shuffle`), the mistake notebook, mastery and readiness.

Pure values and functions. It may import the standard library, `fsrs`, `jieba` and `rapidfuzz`
(a short answer's key points), and `bot.locales`
(the wording of the few sentences a type module owns); nothing else of the core.
"""
