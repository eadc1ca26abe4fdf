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
# PostgreSQL (several processes on one database) and /metrics come with the image: compose.yaml.
# The /stats charts need no system font: their CJK font is a Python dependency (noto-cjk-sans-otc).
RUN pip install '.[postgres,metrics]' && rm -rf /app/build

USER studybot
VOLUME ["/data"]
# /healthz, /readyz and /metrics when STUDYBOT_HTTP_PORT is set (compose.yaml sets 8080)
EXPOSE 8080
ENTRYPOINT ["studybot", "run"]
