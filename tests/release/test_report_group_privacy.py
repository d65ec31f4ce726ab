"""The report's group-privacy paragraph (analyst probe P7, finding 4, session 71). It said a person with k records is
protected "about k times less" / "about k times epsilon", which reads as a linear loss, where the odds bound e^(k
epsilon) grows from e = 2.7 at k = 1 to 4.9e8 at k = 20; it did not say that replace-one never covers whether a person
took part (that changes the public n), nor how to divide a person-level budget for a public cap k on their records.
docs/datasets.md, "One person, several rows", says the same."""

from __future__ import annotations

import numpy as np

import dpcvx
from dpcvx.privacy.neighbours import group_epsilon_delta


def _paragraph(**fit):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 3))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
    y = np.where(X[:, 0] > 0, 1, -1)
    model = dpcvx.PrivateERM(lam=0.01, data_norm=1.0).fit(X, y, 1.0, "output", random_state=0, **fit)
    text = str(model.report()).replace("\\_", "_")  # Markdown escapes an underscore
    start = text.index("A person who contributed k records")
    return text[start:text.index("\n", start)]


def test_the_report_states_the_odds_bound_of_k_records_and_what_replace_one_leaves_out():
    text = _paragraph()
    assert "about k times" not in text
    assert "protected at k epsilon" in text
    assert "up to e^(k epsilon): 7.389 at k = 2, 148.4 at k = 5, 4.852e+08 at k = 20, against 2.718" in text
    assert "except on events" not in text  # pure epsilon: no delta to except
    assert "whether the person took part at all changes n, which replace-one does not cover" in text
    assert 'neighbours="add-remove" (offered with a positive delta)' in text
    assert "fit at epsilon_P / k for a person-level budget epsilon_P." in text


def test_under_add_remove_the_paragraph_says_the_persons_presence_is_covered():
    text = _paragraph(neighbours="add-remove", delta=1e-6, n_public=400)
    assert "Under add-remove this covers adding or removing all k of the person's records" in text
    assert "replace-one does not cover" not in text


def test_the_delta_split_for_a_public_cap_inverts_the_group_bound():
    """The stated per-record delta, delta_P / (1 + e^(epsilon_P / k) + ... + e^((k - 1) epsilon_P / k)), at epsilon_P
    / k gives back (epsilon_P, delta_P) by the one group-privacy formula."""
    text = _paragraph(delta=1e-6)
    assert "at most k e^((k - 1) epsilon) delta" in text
    # the odds bound holds outside the grown delta's events (attacker probe P9 F4, session 71: it left delta out)
    assert "up to e^(k epsilon), except on events of probability at most the grown delta above:" in text
    assert "delta_P / (1 + e^(epsilon_P / k) + ... + e^((k - 1) epsilon_P / k))" in text
    for k in (2, 5, 20):
        epsilon_p, delta_p = 2.0, 1e-5
        per_record = delta_p / sum(np.exp(i * epsilon_p / k) for i in range(k))
        grouped = group_epsilon_delta(epsilon_p / k, per_record, k)
        assert np.isclose(grouped[0], epsilon_p, rtol=1e-12) and np.isclose(grouped[1], delta_p, rtol=1e-9)
