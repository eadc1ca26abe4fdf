"""Reading what a learner typed (and what a paper's key says): option letters, true/false words,
numbers and quantities, text folding for comparison, and the refusal of an unreadable reply.

Part of the domain: imports the standard library, `bot.locales` and the domain only.
"""
