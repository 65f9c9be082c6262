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
# torch first, from PyTorch's CPU index: the `docling` extra pins torch==2.13.0, and the default
# index's wheel of it brings several GB of CUDA packages no pool uses. Then the extras the pools
# import lazily: `docling` (parsing: HTML/PDF conversion), `llm` (Claude when a key is set: the
# claim stages' extraction, ranking, excerpts and judgement).
RUN pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu \
 && pip install ".[flower,llm,docling]" \
 && useradd --system --uid 10001 --home-dir /var/lib/aletheia --create-home aletheia
USER aletheia
WORKDIR /var/lib/aletheia
CMD ["aletheia", "--help"]
