# syncgrade: the HTTP service (`grade serve`) and Dask workers, from this checkout.
#
#   docker build -t syncgrade .                                 # service + worker image
#   docker run -p 8000:8000 -e SYNCGRADE_SERVE_TOKEN=... syncgrade     # grade serve
#   docker run syncgrade dask worker tcp://scheduler:8786       # a Dask worker
#   docker build --target exercism -t syncgrade-exercism .      # Exercism test runner
#   (PrairieLearn's grader image: deploy/prairielearn/Dockerfile, FROM this one.)
#
# The learner's code runs in syncgrade's own sandbox (docs/security.md). It builds its full
# jail (namespaces, a per-run uid) only as root with CAP_SYS_ADMIN; as this image's
# non-root user it runs in basic mode. docs/platforms.md says which to choose.
ARG PYTHON_IMAGE=python:3.11-slim

# --- build: the wheel, from pyproject.toml, src/ and the built-in course's shipped files --
FROM ${PYTHON_IMAGE} AS build
WORKDIR /src
COPY pyproject.toml README.md ./
COPY src ./src
# exercises/ (the built-in course): .dockerignore lets in only what the wheel ships
# (course.toml, each exercise.py, README.md, stub.py); solutions/ never enters the context.
COPY exercises ./exercises
RUN python -m pip wheel --no-cache-dir --no-deps --wheel-dir /wheels .

# --- runtime: syncgrade[serve,cluster] in a venv, a non-root user ------------------------
FROM ${PYTHON_IMAGE} AS runtime
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    VIRTUAL_ENV=/opt/syncgrade \
    PATH=/opt/syncgrade/bin:$PATH
COPY --from=build /wheels /tmp/wheels
RUN python -m venv /opt/syncgrade \
    && wheel="$(ls /tmp/wheels/syncgrade-*.whl)" \
    && /opt/syncgrade/bin/pip install "syncgrade[serve,cluster] @ file://${wheel}" \
    && rm -rf /tmp/wheels \
    && grade list >/dev/null
RUN useradd --system --create-home --home-dir /home/syncgrade --uid 10001 syncgrade
USER syncgrade
WORKDIR /home/syncgrade
EXPOSE 8000
# Readiness, not liveness: /readyz is 503 (urlopen raises) until the warm pool filled and
# the self-test passed, while no Dask worker is connected (--cluster) and while draining.
HEALTHCHECK --interval=30s --timeout=5s --start-period=120s \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/readyz', timeout=4)"]
# Jobs are kept in ~/.local/state/syncgrade/jobs.sqlite3: mount a volume there (or set
# SYNCGRADE_SERVE_JOB_STORE) to keep them across containers and share them between replicas.
# Off loopback `grade serve` needs a token: set SYNCGRADE_SERVE_TOKEN (or mount a file and
# pass --token-file), or SYNCGRADE_SERVE_NO_AUTH=1 behind a proxy that authenticates.
CMD ["grade", "serve", "--host", "0.0.0.0", "--port", "8000"]

# --- exercism: Exercism's test-runner interface (bin/run.sh SLUG INPUT_DIR OUTPUT_DIR) ---
FROM runtime AS exercism
HEALTHCHECK NONE
USER root
COPY bin/run.sh /opt/test-runner/bin/run.sh
WORKDIR /opt/test-runner
ENTRYPOINT ["/opt/test-runner/bin/run.sh"]

# The default target: the service and worker image.
FROM runtime
