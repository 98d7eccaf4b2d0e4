# gradserve API server with its local worker processes (the embedded default).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /app
COPY pyproject.toml README.md ./
COPY engine engine
COPY server server
COPY client client
RUN pip install ".[server]" \
 && useradd --create-home --uid 10001 gradserve
USER gradserve

EXPOSE 8000
HEALTHCHECK --interval=15s --timeout=3s --start-period=20s \
  CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/readyz', timeout=2)"
CMD ["gradserve", "serve", "--host", "0.0.0.0"]
