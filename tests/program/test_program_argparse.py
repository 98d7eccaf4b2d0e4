"""Program-side ``argparse`` (newcomer 2): pasted scripts from pytorch/examples and most training scripts
build an ``ArgumentParser`` and call ``parse_args()`` first, which stopped them at line 1 with "No module
named 'argparse'". A program has no command line, so ``parse_args()`` answers the defaults; an explicit
list is parsed as CPython's argparse parses it."""
import pytest

from python_oracle import assert_same_as_python, program_stdout

PARSER = """
import argparse
parser = argparse.ArgumentParser(prog="train", description="PyTorch MNIST Example",
                                 formatter_class=argparse.ArgumentDefaultsHelpFormatter)
parser.add_argument('--batch-size', type=int, default=64, metavar='N', help='input batch size')
parser.add_argument('--lr', type=float, default=1.0, metavar='LR', help='learning rate')
parser.add_argument('--gamma', type=float, default='0.7')
parser.add_argument('--no-cuda', action='store_true', default=False)
parser.add_argument('--save-model', action='store_true')
parser.add_argument('-v', '--verbose', action='count', default=0)
parser.add_argument('--dims', type=int, nargs='+', default=[8, 8])
parser.add_argument('--act', choices=['relu', 'tanh'], default='relu')
parser.add_argument('--tag', action='append')
group = parser.add_argument_group('mixed precision')
group.add_argument('--amp', action=argparse.BooleanOptionalAction, default=True)
parser.set_defaults(seed=1)
"""


def test_parse_args_in_a_program_answers_the_defaults():
    out = program_stdout(PARSER + "args = parser.parse_args()\nprint(args)\nprint(args.batch_size * 2, args.gamma)\n")
    assert out.splitlines() == [
        "Namespace(batch_size=64, lr=1.0, gamma=0.7, no_cuda=False, save_model=False, verbose=0, dims=[8, 8], "
        "act='relu', tag=None, amp=True, seed=1)",
        "128 0.7"]


@pytest.mark.parametrize("argv", [
    [],
    ["--lr", "0.1", "--batch-size=32", "--no-cuda"],
    ["-vv", "--verbose", "--dims", "4", "5", "6", "--act", "tanh", "--no-amp"],
    ["--tag", "a", "--tag", "b", "--batch", "16"],   # a unique prefix of a long option
    ["--amp", "--gamma", "-1.5"],                      # a negative number is a value
])
def test_an_explicit_argument_list_parses_as_cpythons_argparse(argv):
    assert_same_as_python(PARSER + f"args = parser.parse_args({argv!r})\nprint(args)\n"
                                   "print(sorted(k for k in ['lr', 'seed', 'nope'] if k in args))\n")


def test_positionals_known_args_and_a_program_type_function():
    assert_same_as_python("""
import argparse
def pair(text):
    a, b = text.split(",")
    return (int(a), int(b))
p = argparse.ArgumentParser(prog="prog")
p.add_argument("data")
p.add_argument("size", type=pair)
p.add_argument("extra", nargs="*")
p.add_argument("--k", type=int, default=3)
ns, rest = p.parse_known_args(["train.csv", "2,3", "x", "y", "--k", "5", "--unknown"])
print(ns, rest)
print(p.get_default("k"))
""")


@pytest.mark.parametrize("call, message", [
    ("p.parse_args()", "the following arguments are required: data"),
    ("p.parse_args(['d', '--n', 'x'])", "argument --n: invalid int value: 'x'"),
    ("p.parse_args(['d', '--act', 'gelu'])", "argument --act: invalid choice: 'gelu' (choose from 'relu', 'tanh')"),
    ("p.parse_args(['d', '--nope'])", "unrecognized arguments: --nope"),
    ("p.parse_args(['d', '--n'])", "argument --n: expected one argument"),
])
def test_a_bad_command_line_writes_usage_and_error_then_exits_2(run_err, call, message):
    ns_source = ("import argparse\np = argparse.ArgumentParser(prog='train')\np.add_argument('data')\n"
                 "p.add_argument('--n', type=int)\np.add_argument('--act', choices=['relu', 'tanh'])\n")
    from gradserve.engine.program import Namespace, run
    out = run(ns_source + call, Namespace())
    assert not out.ok and out.error.type == "SystemExit" and out.error.message == "2" and out.error.line == 6
    assert out.stdout == f"usage: train [-h] [--n N] [--act ACT] data\ntrain: error: {message}\n"


def test_help_prints_and_ends_the_run_as_a_success():
    out = program_stdout("import argparse\np = argparse.ArgumentParser(prog='train', description='demo')\n"
                         "p.add_argument('--lr', type=float, default=0.1, help='learning rate')\n"
                         "p.parse_args(['-h'])\nprint('not reached')\n")
    assert out.startswith("usage: train [-h] [--lr LR]\n\ndemo\n") and "--lr  learning rate" in out
    assert "not reached" not in out


def test_a_custom_type_raising_argument_type_error_is_reported_as_argparse_does(run_err):
    from gradserve.engine.program import Namespace, run
    out = run("import argparse\ndef str2bool(v):\n    if v.lower() in ('yes', 'true'):\n        return True\n"
              "    raise argparse.ArgumentTypeError('Boolean value expected.')\n"
              "p = argparse.ArgumentParser(prog='t')\np.add_argument('--f', type=str2bool, default='yes')\n"
              "print(p.parse_args().f)\np.parse_args(['--f', 'maybe'])\n", Namespace())
    assert out.stdout.splitlines() == ["True", "usage: t [-h] [--f F]", "t: error: argument --f: Boolean value expected."]
    assert out.error.type == "SystemExit"


def test_the_parser_holds_no_host_objects(run_err):
    e = run_err("import argparse\np = argparse.ArgumentParser()\np._arguments")
    assert e.type == "AttributeError"
    e = run_err("import argparse\np = argparse.ArgumentParser()\np.add_argument('--x', frobnicate=1)")
    assert e.type == "TypeError" and "frobnicate" in e.message


@pytest.mark.parametrize("source, kind", [
    ("p.add_argument('--x', dest='__class__', default=1)", "ValueError"),
    ("p.add_argument('--x', dest='__dict__')", "ValueError"),
    ("p.set_defaults(_private=1)", "ValueError"),
    ("p.add_argument('--x', dest=3)", "TypeError"),
    ("class O:\n    pass\np.parse_args([], namespace=O())", "TypeError"),
])
def test_what_reaches_the_namespace_is_a_name_a_program_could_set(run_err, source, kind):
    e = run_err("import argparse\np = argparse.ArgumentParser()\n" + source)
    assert e.type == kind


def test_a_given_namespace_is_filled():
    out = program_stdout("import argparse, types\np = argparse.ArgumentParser()\np.add_argument('--x', default=2)\n"
                         "ns = types.SimpleNamespace(y=1)\np.parse_args([], namespace=ns)\nprint(ns.x, ns.y)\n")
    assert out == "2 1\n"
