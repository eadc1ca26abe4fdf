"""Contract: chats and users behave the same on every storage backend."""

from __future__ import annotations

from dataclasses import replace

from bot.domain.kinds import AnswerPolicy
from tests.contract.helpers import SETTINGS, chat_ref, user_ref


async def test_a_chat_is_added_once_and_found_by_key_and_id(storage):
    store = storage.store
    chat = await store.ensure_chat(chat_ref("c1"), SETTINGS)
    again = await store.ensure_chat(chat_ref("c1"), replace(SETTINGS, language="zh-CN"))
    assert again == chat and chat.settings.language == "en"
    assert await store.get_chat(chat.id) == chat
    assert await store.find_chat("discord", "c1") == chat
    assert await store.find_chat("discord", "nope") is None and await store.get_chat(chat.id + 99) is None


async def test_settings_pause_rename_and_move(storage):
    store = storage.store
    chat = await store.ensure_chat(chat_ref("c1"), SETTINGS)
    updated = await store.update_chat(chat.id, replace(SETTINGS, answer_policy=AnswerPolicy.CHANGEABLE))
    assert updated.settings.answer_policy is AnswerPolicy.CHANGEABLE
    await store.set_chat_paused(chat.id, True)
    assert (await store.get_chat(chat.id)).paused
    renamed = await store.ensure_chat(replace(chat_ref("c1"), title="new title", guild_key="g9"), SETTINGS)
    assert (renamed.ref.title, renamed.ref.guild_key) == ("new title", "g9")
    await store.move_chat(chat.id, "c1-super")
    assert (await store.find_chat("discord", "c1-super")).id == chat.id


async def test_a_servers_language_reaches_its_chats_now_and_later(storage):
    store = storage.store
    first = await store.ensure_chat(chat_ref("c1", guild="g1"), SETTINGS)
    other = await store.ensure_chat(chat_ref("c2", guild="g2"), SETTINGS)
    assert await store.set_guild_language("discord", "g1", "zh-TW") == [first.id]
    later = await store.ensure_chat(chat_ref("c3", guild="g1"), SETTINGS)
    assert later.settings.language == "zh-TW"
    assert (await store.get_chat(first.id)).settings.language == "zh-TW"
    assert (await store.get_chat(other.id)).settings.language == "en"


async def test_users_register_in_batches_with_repeats_and_renames(storage):
    store = storage.store
    refs = [user_ref("u1"), user_ref("u2"), user_ref("u1", "renamed"), user_ref("u3")]
    ids = await store.ensure_users(refs)
    assert ids[0] == ids[2] and len(set(ids)) == 3
    assert await store.ensure_user(user_ref("u2")) == ids[1]
    assert await store.find_user(user_ref("u3")) == ids[3]
    assert await store.find_user(user_ref("nobody")) is None
    await store.ensure_user(user_ref("u2", "Zoë 🦊"))
    assert await store.ensure_users([user_ref("u2", "Zoë 🦊")]) == [ids[1]]
