# studybot: slim Python, non-root, data in a volume. Tokens come from the environment:
#   docker run -e TELEGRAM_TOKEN=... -v studybot-data:/data studybot
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    STUDYBOT_DATA_DIR=/data

RUN useradd --create-home --uid 10001 studybot \
    && mkdir /data && chown studybot:studybot /data

WORKDIR /app
COPY pyproject.toml README.md LICENSE ./
COPY bot ./bot
COPY adapters ./adapters
COPY bank ./bank
COPY studybot ./studybot
RUN pip install . && rm -rf /app/build

USER studybot
VOLUME ["/data"]
ENTRYPOINT ["studybot", "run"]
