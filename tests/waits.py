"""How long a test waits for the bot: a hang detector, not a speed check.

The harnesses wait for events (a request reaching a fake, a line printed), so a wait that goes
well ends as soon as the event happens, however long the timeout is. The timeout only decides
when a bot that will never answer is given up on; on a machine shared with other busy programs a
first chart or a spawned process can take many seconds, so it is generous.
"""

HANG = 60.0  # seconds
