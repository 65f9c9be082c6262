# The one image every service of docker-compose.yml runs (workers, beat, Flower, the migration).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 \
    ALETHEIA_DATA_DIR=/var/lib/aletheia
WORKDIR /src
COPY pyproject.toml README.md ./
COPY core core
COPY config config
COPY sources sources
COPY storage storage
COPY pipeline pipeline
COPY workers workers
COPY producers producers
RUN pip install ".[flower]" \
 && useradd --system --uid 10001 --home-dir /var/lib/aletheia --create-home aletheia
USER aletheia
WORKDIR /var/lib/aletheia
CMD ["aletheia", "--help"]
