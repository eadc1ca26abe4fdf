"""The fake Discord's request checker remembers: a part of a body checked against a schema once
is not checked again within that body, and a body sent before has the findings it had. Neither
may change a finding: on bodies built the way the world varies them (right, wrong, mixed), the
remembering checker finds exactly what a checker that remembers nothing finds."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.fakes.discord_rules import Finding
from tests.fakes.discord_spec import OpenApiSpec, load_spec


class Forgetful(OpenApiSpec):
    """The same checks, nothing remembered."""

    def _validate(self, value: Any, schema: dict[str, Any], path: tuple[str, ...],
                  out: list[Finding], closed: bool) -> None:  # fmt: skip
        self._check(value, self._deref(schema), path, out, closed)

    def check_body(self, match: Any, body: Any, content_type: str = "application/json") -> list[Finding]:
        self._bodies.clear()
        return super().check_body(match, body, content_type)


SPEC = load_spec()
FORGETFUL = Forgetful(SPEC.doc)  # the same document (its gaps already filled)

_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-5, 10**19), st.text(max_size=12),
    st.sampled_from(["sb:a:1:A", "A", "", "x" * 120, "1579281300601176127"]),
)  # fmt: skip
_button = st.fixed_dictionaries(
    {"type": st.sampled_from([2, 2, 3, 4, 99, "2"]), "style": st.sampled_from([1, 2, 4, 5, 9]),
     "label": _scalars, "custom_id": _scalars},
    optional={"disabled": st.booleans(), "emoji": st.fixed_dictionaries({"name": _scalars}),
              "url": _scalars, "unknown": _scalars},
)  # fmt: skip
_row = st.fixed_dictionaries(
    {"type": st.sampled_from([1, 1, 2]), "components": st.lists(_button, max_size=4)},
    optional={"id": st.integers(0, 5)},
)
_embed = st.fixed_dictionaries(
    {},
    optional={"title": _scalars, "description": _scalars, "color": _scalars,
              "fields": st.lists(st.fixed_dictionaries({"name": _scalars, "value": _scalars},
                                                       optional={"inline": st.booleans()}), max_size=3),
              "footer": st.fixed_dictionaries({"text": _scalars}), "nope": _scalars},
)  # fmt: skip
_message = st.fixed_dictionaries(
    {},
    optional={"content": _scalars, "embeds": st.lists(_embed, max_size=2),
              "components": st.lists(_row, max_size=3), "flags": st.sampled_from([0, 64, 32768, "64"]),
              "allowed_mentions": st.fixed_dictionaries({"parse": st.lists(st.text(max_size=5), max_size=2)}),
              "tts": _scalars},
)  # fmt: skip
_callback = st.fixed_dictionaries(
    {"type": st.sampled_from([4, 5, 6, 7, 9, 1, 42])},
    optional={"data": st.one_of(_message, st.fixed_dictionaries(
        {"custom_id": _scalars, "title": _scalars, "components": st.lists(_row, max_size=3)}))},
)  # fmt: skip
ROUTES = [
    ("POST", "/channels/1/messages", _message),
    ("PATCH", "/channels/1/messages/2", _message),
    ("POST", "/interactions/1/tok/callback", _callback),
    ("POST", "/webhooks/1/tok", _message),
]


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_remembering_changes_no_finding(data: st.DataObject) -> None:
    method, path, bodies = data.draw(st.sampled_from(ROUTES))
    match = SPEC.match(method, path)
    assert match is not None and match.operation is not None
    body = data.draw(bodies)
    want = FORGETFUL.check_body(match, body)
    assert SPEC.check_body(match, body) == want
    assert SPEC.check_body(match, body) == want  # remembered from the first time: the same
