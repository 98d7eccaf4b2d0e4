"""The client's docstrings are what a newcomer reads first (``help(gradserve.client)``): their
indented examples must be Python that runs when pasted. A ``\\n`` written inside a docstring that
is not raw becomes a real line break in the text, and the pasted string literal is then cut in two."""
import ast
import inspect
import textwrap

import gradserve.client as client


def _examples(doc):
    """The indented blocks of a docstring (after its first line), dedented."""
    blocks, block = [], []
    for line in doc.splitlines()[1:] + [""]:
        if line.startswith("    ") or (block and not line.strip()):
            block.append(line)
        elif block:
            blocks.append(textwrap.dedent("\n".join(block)))
            block = []
    if block:
        blocks.append(textwrap.dedent("\n".join(block)))
    return [b for b in blocks if b.strip()]


def test_the_package_docstring_example_parses_and_runs_a_three_line_program():
    examples = _examples(inspect.getdoc(client) and client.__doc__)
    assert examples, "the package docstring shows an example"
    tree = ast.parse(examples[0])      # a SyntaxError before: the program's string literal was cut at each \n
    programs = [n.args[0].value for n in ast.walk(tree)
                if isinstance(n, ast.Call) and getattr(n.func, "attr", None) == "run"]
    assert programs == ["x = torch.ones(3, requires_grad=True)\ny = (x * x).sum()\ny.backward()"]


def test_the_clients_say_what_their_arguments_default_to():
    # Client() with no address reads GRADSERVE_URL, and no api_key GRADSERVE_API_KEY: a newcomer
    # reading help(Client) learns it there (the README did not say it either)
    for cls in (client.Client, client.AsyncClient):
        doc = inspect.getdoc(cls)
        for word in ("GRADSERVE_URL", "http://127.0.0.1:8000", "GRADSERVE_API_KEY", "max_retries", "timeout"):
            assert word in doc, (cls.__name__, word)


def test_the_clients_read_their_address_and_key_from_the_environment(monkeypatch):
    monkeypatch.setenv("GRADSERVE_URL", "http://127.0.0.1:9/")
    monkeypatch.setenv("GRADSERVE_API_KEY", "k1")
    with client.Client() as c:
        assert (c.base_url, c.api_key) == ("http://127.0.0.1:9", "k1")
