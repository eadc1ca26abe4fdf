"""The stores' SQL is written once with `?` placeholders and compiled for PostgreSQL
(adapters/storage/database.py): `?` becomes `$1…$n` in order, `?N` becomes `$N`, and a `?`
inside a quoted string, a quoted name or a comment is left alone."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from adapters.storage.database import numbered
from adapters.storage.postgres.database import POSTGRES
from adapters.storage.sqlite.database import SQLITE

# Pieces of SQL text: plain words, placeholders, and quoted text that may hold a `?`.
_words = st.sampled_from(["SELECT", "x", "=", ",", "(", ")", "AND", "1", " ", "\n", "::text"])
_quoted = st.text(alphabet="ab?$ ", max_size=6).map(lambda t: "'" + t.replace("'", "''") + "'")
_names = st.text(alphabet="ab? ", min_size=1, max_size=4).map(lambda t: '"' + t + '"')
_comment = st.text(alphabet="ab? ", max_size=6).map(lambda t: "-- " + t + "\n")
_piece = st.one_of(_words, _quoted, _names, _comment, st.just("? "))  # spaced: `?1` is numbered


@given(st.lists(_piece, max_size=30))
def test_each_bare_placeholder_is_numbered_in_order_and_quoted_text_is_kept(pieces):
    compiled = numbered("".join(pieces))
    expected = []
    n = 0
    for piece in pieces:
        if piece == "? ":
            n += 1
            expected.append(f"${n} ")
        else:
            expected.append(piece)
    assert compiled == "".join(expected)


def test_numbered_placeholders_keep_their_numbers_so_a_value_is_used_twice():
    sql = "UPDATE t SET a = ?1 WHERE b <= ?1 - ?2 AND c = '?3'"
    assert numbered(sql) == "UPDATE t SET a = $1 WHERE b <= $1 - $2 AND c = '?3'"


def test_mixed_placeholder_styles_are_refused():
    with pytest.raises(ValueError, match="mixed"):
        numbered("SELECT ? + ?2")


def test_sqlite_runs_the_text_as_written_and_postgres_compiles_it_once():
    sql = "SELECT x FROM t WHERE a = ? AND b = ?"
    assert SQLITE.sql(sql) is sql
    first = POSTGRES.sql(sql)
    assert first == "SELECT x FROM t WHERE a = $1 AND b = $2"
    assert POSTGRES.sql(sql) is first  # cached: the rewrite runs once per statement text


def test_list_and_row_parameters_are_one_array_each_on_postgres_and_spread_out_on_sqlite():
    assert SQLITE.any_of("id", [3, 1], "bigint") == ("id IN (?, ?)", [3, 1])
    assert POSTGRES.any_of("id", [3, 1], "bigint") == ("id = ANY(?::bigint[])", [[3, 1]])
    keys = [(1, "b", "q1"), (2, "b", "q2")]
    sql, params = SQLITE.rows_of(keys, ("bigint", "text", "text"))
    assert (sql, params) == ("VALUES (?, ?, ?), (?, ?, ?)", [1, "b", "q1", 2, "b", "q2"])
    sql, params = POSTGRES.rows_of(keys, ("bigint", "text", "text"))
    assert re.fullmatch(r"SELECT \* FROM unnest\(\?::bigint\[\], \?::text\[\], \?::text\[\]\)", sql)
    assert params == [[1, 2], ["b", "b"], ["q1", "q2"]]
