from gitcoop.domain.memo import MEMO_HELD, Memo


def test_a_memo_returns_what_it_keeps_and_holds_it() -> None:
    memo: Memo[str, int] = Memo()
    assert memo.keep("a", 1) == 1
    assert memo.get("a") == 1


def test_a_full_memo_starts_again_so_it_never_holds_more_than_its_bound() -> None:
    memo: Memo[int, int] = Memo()
    for n in range(MEMO_HELD):
        memo.keep(n, n)
    assert len(memo) == MEMO_HELD
    memo.keep(MEMO_HELD, 0)  # one past: everything before it is forgotten
    assert dict(memo) == {MEMO_HELD: 0}
