"""Hostile pass 6, F3: a chain of modules n deep has dotted names of total length n**2. 16,000 levels
(one small parameter each; built in 0.4 s) made GET /v1/sessions/{id} answer 257 MB of names, and two
clients fetching it held the API's event loop: another session's 10 ms run waited 4.6 s. At 7,900
levels GET .../checkpoint answered 500 (safetensors refused a 125 MB header), and at any depth past
~128 it saved names no checkpoint PUT accepts (names.MAX_NAME_LENGTH). The listing now counts such
tensors in "omitted" without building their names; a checkpoint of them is a 422 that says why."""
from gradserve.server.names import MAX_NAME_LENGTH

CHAIN = """
m = nn.Module()
m.w = nn.Parameter(torch.zeros(1))
for i in range({n}):
    p = nn.Module()
    p.c = m
    p.w = nn.Parameter(torch.zeros(1))
    m = p
p = None
"""


def test_the_listing_leaves_out_names_no_route_accepts(session):
    session.ok(CHAIN.format(n=1000) + "x = torch.ones(2)", outputs=[])
    body = session.get().json()
    names = body["variables"]
    assert "x" in names and "m.w" in names and "m.c.w" in names
    assert max(len(n) for n in names) <= MAX_NAME_LENGTH
    assert len(names) + body["omitted"] == 1001 + 1
    assert len(names) == 1 + len([k for k in range(1002) if len("m." + "c." * k + "w") <= MAX_NAME_LENGTH])


def test_a_checkpoint_of_names_no_put_accepts_is_a_422(session):
    session.ok(CHAIN.format(n=200), outputs=[])
    r = session.get("/checkpoint")
    assert r.status_code == 422, r.status_code
    assert r.json()["error"]["type"] == "ValueError" and "longer than 256 characters" in r.json()["error"]["message"]
    session.ok("m = None\nkeep = torch.ones(3)", outputs=[])
    assert session.get("/checkpoint").status_code == 200


def test_a_very_deep_chain_is_listed_small_and_its_checkpoint_is_no_500(session):
    session.ok(CHAIN.format(n=7900), outputs=[])
    r = session.get()
    assert r.status_code == 200 and len(r.content) < 1 << 20
    assert r.json()["omitted"] == 7901 - len(r.json()["variables"])
    assert session.get("/checkpoint").status_code == 422
