"""Hostile pass 13 (tests/hostile_attack13_log.md): engine-side findings, against PyTorch where
it is installed.

F1: ``tensor(a)`` of a list that holds itself walked its first elements without end.
"""
import pytest

import gradserve.engine as E


def _self_holding(kind=list):
    a = []
    a.append(a)
    return a if kind is list else (a,)


@pytest.mark.parametrize("make", [lambda d: E.tensor(d), lambda d: E.as_tensor(d),
                                  lambda d: E.ones(1).new_tensor(d)])
def test_a_list_that_holds_itself_is_a_value_error(make):
    with pytest.raises(ValueError, match="too many dimensions 'list'"):
        make(_self_holding())


def test_a_list_that_holds_itself_matches_pytorch():
    torch = pytest.importorskip("torch")
    with pytest.raises(ValueError) as theirs:
        torch.tensor(_self_holding())
    with pytest.raises(ValueError) as ours:
        E.tensor(_self_holding())
    assert str(ours.value) == str(theirs.value)
