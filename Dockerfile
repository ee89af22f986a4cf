# kqctl for CI systems other than GitHub Actions and pre-commit:
#   docker build -t kqctl .
#   docker run --rm -v "$PWD:/work" kqctl validate -R manifests/ -o junit > report.xml
# Runs as an unprivileged user (uid 10001); the working directory /work is where to mount the repository.
FROM python:3.12-slim
COPY . /src
RUN python -m pip install --no-cache-dir /src \
    && rm -rf /src \
    && useradd --uid 10001 --create-home --shell /usr/sbin/nologin kqctl
USER 10001
WORKDIR /work
ENTRYPOINT ["kqctl"]
CMD ["--help"]
