# syntax=docker/dockerfile:1
# One image for the API, the worker, the webhook dispatcher and the one-shot migration:
# the command picks (`ramp api`, `ramp worker`, `ramp dispatcher`, `ramp db upgrade`).
# See docker-compose.yml.

ARG PYTHON_IMAGE=python:3.11-slim

FROM ${PYTHON_IMAGE} AS build
ENV PIP_DISABLE_PIP_VERSION_CHECK=1
# A virtualenv copies whole into the runtime stage, leaving the build tree behind.
RUN python -m venv /opt/venv
ENV PATH=/opt/venv/bin:$PATH
WORKDIR /src
# The locked dependencies first (requirements.lock: every version pinned, every file's
# hash checked), the same that scripts/lib/venv.sh installs into a clone's .venv; this
# layer is rebuilt only when the lock changes. The cache mount keeps downloaded wheels
# across builds without putting them in the image.
COPY requirements.lock .
RUN --mount=type=cache,target=/root/.cache/pip \
    pip install --require-hashes -r requirements.lock
# Then the service itself, its dependencies already there (--no-deps: nothing unlocked).
COPY . .
RUN --mount=type=cache,target=/root/.cache/pip pip install --no-deps .

FROM ${PYTHON_IMAGE}
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1
# A fixed numeric uid lets orchestrators check runAsNonRoot. The home directory is the
# working directory and the only writable place (the sandbox data dir defaults there).
RUN groupadd --system --gid 10001 ramp \
    && useradd --system --uid 10001 --gid ramp --create-home --home-dir /home/ramp \
        --shell /usr/sbin/nologin ramp
COPY --from=build /opt/venv /opt/venv
USER 10001:10001
WORKDIR /home/ramp
EXPOSE 8000
ENTRYPOINT ["ramp"]
CMD ["api", "--host", "0.0.0.0", "--port", "8000"]
