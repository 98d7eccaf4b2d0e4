# gradserve: the API server (embedded default: a process per session), a Ray node, or the load
# balancer in front of API replicas. One image for all of them (see docker-compose.yml).
#
# BASE is the usual public Python image by default; CI, which reaches no image registry, builds
# a Debian bookworm base with debootstrap and passes it here (--build-arg BASE=gradserve-base:bookworm).
# One COPY and one RUN on purpose: under the vfs storage driver (CI's) every layer is a full copy
# of the file system.
ARG BASE=python:3.11-slim
FROM ${BASE}

ARG EXTRAS=server,ray
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_CERT=/etc/ssl/certs/ca-certificates.crt \
    VIRTUAL_ENV=/opt/gradserve PATH=/opt/gradserve/bin:$PATH RAY_USAGE_STATS_ENABLED=0
WORKDIR /app
COPY . .
# deploy/ca-certificates: the certificate authorities of a builder behind a TLS-inspecting proxy;
# nginx-light for the load-balancer service; python3-venv where the base is plain Debian
RUN cp deploy/ca-certificates/*.crt /usr/local/share/ca-certificates/ 2>/dev/null || true \
 && apt-get update -q \
 && apt-get install -y -q --no-install-recommends nginx-light ca-certificates \
 && if ! python3 -c "import ensurepip" 2>/dev/null; then apt-get install -y -q --no-install-recommends python3-venv; fi \
 && update-ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && python3 -m venv /opt/gradserve \
 && pip install ".[${EXTRAS}]" \
 && useradd --create-home --uid 10001 gradserve
USER gradserve

EXPOSE 8000
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD python -c "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:%s/healthz' % os.environ.get('GRADSERVE_PORT', '8000'), timeout=2)"
CMD ["gradserve", "serve", "--host", "0.0.0.0"]
