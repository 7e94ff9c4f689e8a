//! The cache's limits: the entries' time to live, their number, the least recently used out.

use super::*;

#[test]
fn ttl_counts_from_record_and_a_hit_does_not_extend_it() {
    let (mut m, clock) = manager(DEFAULT_MAX_ENTRIES, 1_000);
    clock.set(5_000);
    let first = plan(&mut m, &turn1());
    m.record(&first, "chat-1");
    clock.set(5_500);
    assert_eq!(
        plan(&mut m, &turn2()).resume_chat_id.as_deref(),
        Some("chat-1")
    );
    clock.set(5_999);
    assert_eq!(
        plan(&mut m, &turn2()).resume_chat_id.as_deref(),
        Some("chat-1")
    );
    assert_eq!(m.len(), 1);
    clock.set(6_000);
    assert_eq!(m.len(), 0, "expired entries are not counted");
    assert_eq!(plan(&mut m, &turn2()).resume_chat_id, None);
    // Recording again starts a new lifetime.
    let again = plan(&mut m, &turn2());
    m.record(&again, "chat-2");
    clock.set(6_900);
    let third = talk(&[
        "read hello.txt",
        "It says hi.",
        "  now summarise it  ",
        "ok",
        "more",
    ]);
    assert_eq!(
        plan(&mut m, &third).resume_chat_id.as_deref(),
        Some("chat-2")
    );
}

fn opener(text: &str) -> (Value, Value) {
    let first = request(json!([{"role": "user", "content": text}]));
    let next = request(json!([
        {"role": "user", "content": text},
        {"role": "assistant", "content": "ok"},
        {"role": "user", "content": "next"},
    ]));
    (first, next)
}

#[test]
fn a_huge_capacity_reserves_nothing_and_still_caps_the_entries() {
    // `usize::MAX` entries would abort the process if room for them were reserved up front.
    let options = ResumeOptions {
        enabled: true,
        max_entries: NonZeroUsize::MAX,
        ttl_ms: DEFAULT_TTL_MS,
    };
    let mut m = SessionResumeManager::new(options);
    let (a, _) = opener("conversation a");
    let pa = plan(&mut m, &a);
    assert!(m.record(&pa, "chat-a"));
    assert_eq!(m.len(), 1);

    let (mut small, _clock) = manager(1, DEFAULT_TTL_MS);
    let (b, b_next) = opener("conversation b");
    let pa = plan(&mut small, &a);
    small.record(&pa, "chat-a");
    let pb = plan(&mut small, &b);
    small.record(&pb, "chat-b");
    assert_eq!(small.len(), 1);
    assert_eq!(
        plan(&mut small, &b_next).resume_chat_id.as_deref(),
        Some("chat-b")
    );
}

#[test]
fn least_recently_used_is_evicted_and_a_hit_refreshes_the_order() {
    let (mut m, _clock) = manager(2, DEFAULT_TTL_MS);
    let (a, a_next) = opener("conversation a");
    let (b, b_next) = opener("conversation b");
    let (c, c_next) = opener("conversation c");
    let pa = plan(&mut m, &a);
    m.record(&pa, "chat-a");
    let pb = plan(&mut m, &b);
    m.record(&pb, "chat-b");
    assert_eq!(
        plan(&mut m, &a_next).resume_chat_id.as_deref(),
        Some("chat-a")
    );
    let pc = plan(&mut m, &c);
    m.record(&pc, "chat-c");
    assert_eq!(m.len(), 2);
    assert_eq!(
        plan(&mut m, &b_next).resume_chat_id,
        None,
        "b was least recently used"
    );
    assert_eq!(
        plan(&mut m, &a_next).resume_chat_id.as_deref(),
        Some("chat-a")
    );
    assert_eq!(
        plan(&mut m, &c_next).resume_chat_id.as_deref(),
        Some("chat-c")
    );
}

#[test]
fn clear_empties_the_cache() {
    let mut m = enabled();
    let p = plan(&mut m, &turn1());
    m.record(&p, "chat-1");
    m.clear();
    assert!(m.is_empty());
}
