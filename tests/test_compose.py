"""compose.yaml checked against the code it configures: PostgreSQL and two bot processes, each
health-checked on the port the bot serves, every variable it sets read by the bot, the Discord
shards split without gap or overlap."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import yaml

from studybot.config import load_config

ROOT = Path(__file__).resolve().parent.parent
COMPOSE = yaml.safe_load((ROOT / "compose.yaml").read_text(encoding="utf-8"))
BOTS = {name: service for name, service in COMPOSE["services"].items() if name.startswith("bot-")}


def test_postgresql_and_two_bot_processes_on_it():
    assert COMPOSE["services"]["postgres"]["image"].startswith("postgres:")
    assert len(BOTS) == 2
    for service in BOTS.values():
        env = service["environment"]
        assert env["STUDYBOT_DATABASE_URL"].startswith("postgresql://")
        assert "@postgres:5432/" in env["STUDYBOT_DATABASE_URL"]
        assert service["depends_on"]["postgres"]["condition"] == "service_healthy"


def test_each_bot_is_health_checked_on_the_port_it_serves():
    dockerfile = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    assert "'.[postgres,metrics]'" in dockerfile  # the drivers the compose file needs
    host_ports = []
    for service in BOTS.values():
        port = service["environment"]["STUDYBOT_HTTP_PORT"]
        assert f"EXPOSE {port}" in dockerfile
        assert f"127.0.0.1:{port}/healthz" in " ".join(service["healthcheck"]["test"])
        (mapping,) = service["ports"]
        assert mapping.endswith(f":{port}")
        host_ports.append(mapping.rsplit(":", 2)[1])
    assert len(set(host_ports)) == len(host_ports)


def test_every_variable_set_for_the_bots_is_read():
    default = load_config(env={})
    for service in BOTS.values():
        for name, value in service["environment"].items():
            example = "postgresql://u@h/d" if name == "STUDYBOT_DATABASE_URL" else "8080"
            if "SHARDS" in name:
                example = str(value)
            if "SECRET" in name:
                example = "abc"
            if name == "TELEGRAM_WEBHOOK_URL":
                continue  # needs the secret beside it; checked with it in the Telegram tests
            assert load_config(env={name: example}) != default, f"{name} is not read"


def test_the_discord_shards_are_split_without_gap_or_overlap():
    shards = [service["environment"]["STUDYBOT_DISCORD_SHARDS"] for service in BOTS.values()]
    totals = {int(spec.split("/")[1]) for spec in shards}
    assert len(totals) == 1
    ids = sorted(int(spec.split("/")[0]) for spec in shards)
    assert ids == list(range(totals.pop()))


def test_docker_compose_accepts_the_file(tmp_path):
    docker = shutil.which("docker")
    probe = subprocess.run([docker, "compose", "version"], capture_output=True) if docker else None
    if probe is None or probe.returncode != 0:
        # No compose here: the YAML anchors and merge keys were resolved by yaml.safe_load above.
        assert re.search(r"^x-bot: &bot$", (ROOT / "compose.yaml").read_text(), re.M)
        return
    env = {"POSTGRES_PASSWORD": "x", "PATH": "/usr/bin:/bin:/usr/local/bin"}
    done = subprocess.run([docker, "compose", "-f", str(ROOT / "compose.yaml"), "config", "--quiet"],
                          capture_output=True, text=True, env=env, cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
