"""Python's scoping rules, decided before a program runs: for every function,
lambda, comprehension and class body, which names are its own, which it
reads from an enclosing function (closures), and which are global.

A frame's ``cells`` hold the variables of the enclosing function-like scopes,
outermost first (``Scope.chain``); a free variable compiles to its index there.
Class bodies are not in the chain: methods do not see class attributes as
variables, as in Python.
"""
import ast

__all__ = ["Scope", "build_scopes", "check_nesting", "child_nodes", "CompileError", "MAX_NESTING"]

MAX_NESTING = 100
_FUNCTION_KINDS = frozenset(("function", "lambda", "comprehension"))


_AST = ast.AST
_FIELDS = {}   # node type -> its _fields


def child_nodes(node):
    """``list(ast.iter_child_nodes(node))``, the same nodes in the same order, at a fraction of its
    cost: compiling walks every node of a program several times (nesting, scopes, yields), and
    the generator and ``iter_fields`` behind ``iter_child_nodes`` were most of those walks' time."""
    t = type(node)
    fields = _FIELDS.get(t)
    if fields is None:
        fields = _FIELDS[t] = tuple(t._fields)
    out = []
    for name in fields:
        v = getattr(node, name, None)
        if type(v) is list:
            for item in v:
                if isinstance(item, _AST):
                    out.append(item)
        elif isinstance(v, _AST):
            out.append(v)
    return out


class CompileError(Exception):
    """A program the interpreter refuses before running it (reported as SyntaxError)."""

    def __init__(self, message, node=None, type="SyntaxError"):
        super().__init__(message)
        self.message = message
        self.type = type
        self.line = getattr(node, "lineno", None)
        col = getattr(node, "col_offset", None)
        self.col = col + 1 if col is not None else None


class Scope:
    __slots__ = ("kind", "name", "parent", "assigned", "globals", "nonlocals", "chain", "generator")

    def __init__(self, kind, name, parent):
        self.kind = kind
        self.name = name
        self.parent = parent
        self.generator = False   # a yield of its own (in its comprehensions too): a generator function
        self.assigned = set()
        self.globals = set()
        self.nonlocals = set()
        if parent is None:
            self.chain = ()
        else:
            self.chain = parent.chain + ((parent,) if parent.is_function() else ())

    def is_function(self):
        return self.kind in _FUNCTION_KINDS

    def resolve(self, name):
        """("global",) | ("local",) | ("free", index) | ("class", index or None)"""
        if self.kind == "module" or name in self.globals:
            return ("global",)
        if name in self.nonlocals:
            return ("free", self._enclosing(name))
        if self.is_function():
            if name in self.assigned:
                return ("local",)
            i = self._enclosing(name)
            return ("free", i) if i is not None else ("global",)
        return ("class", self._enclosing(name))

    def _enclosing(self, name):
        chain = self.chain
        for i in range(len(chain) - 1, -1, -1):
            s = chain[i]
            if name in s.globals:
                return None
            if name in s.assigned and name not in s.nonlocals:
                return i
        return None


def _param_names(args):
    names = [a.arg for a in args.posonlyargs + args.args]
    if args.vararg:
        names.append(args.vararg.arg)
    names.extend(a.arg for a in args.kwonlyargs)
    if args.kwarg:
        names.append(args.kwarg.arg)
    return names


class _Builder:
    def __init__(self):
        self.scopes = {}

    def build(self, tree):
        module = Scope("module", "<module>", None)
        self.scopes[tree] = module
        for stmt in tree.body:
            self.visit(stmt, module)
        self._check_nonlocals()
        return self.scopes

    def _check_nonlocals(self):
        for node, scope in self.scopes.items():
            for name in scope.nonlocals:
                if scope._enclosing(name) is None:
                    raise CompileError(f"no binding for nonlocal '{name}' found", node)

    def visit(self, node, scope):
        t = type(node)
        if t is ast.FunctionDef:
            scope.assigned.add(node.name)
            for d in node.decorator_list:
                self.visit(d, scope)
            self._visit_defaults(node.args, scope)
            inner = Scope("function", node.name, scope)
            self.scopes[node] = inner
            inner.assigned.update(_param_names(node.args))
            for stmt in node.body:
                self.visit(stmt, inner)
            return
        if t is ast.Lambda:
            self._visit_defaults(node.args, scope)
            inner = Scope("lambda", "<lambda>", scope)
            self.scopes[node] = inner
            inner.assigned.update(_param_names(node.args))
            self.visit(node.body, inner)
            return
        if t is ast.ClassDef:
            scope.assigned.add(node.name)
            for e in node.bases + [k.value for k in node.keywords] + node.decorator_list:
                self.visit(e, scope)
            inner = Scope("class", node.name, scope)
            self.scopes[node] = inner
            for stmt in node.body:
                self.visit(stmt, inner)
            return
        if t in (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp):
            gens = node.generators
            self.visit(gens[0].iter, scope)
            inner = Scope("comprehension", "<comprehension>", scope)
            self.scopes[node] = inner
            for i, gen in enumerate(gens):
                self.visit(gen.target, inner)
                if i:
                    self.visit(gen.iter, inner)
                for cond in gen.ifs:
                    self.visit(cond, inner)
            if t is ast.DictComp:
                self.visit(node.key, inner)
                self.visit(node.value, inner)
            else:
                self.visit(node.elt, inner)
            return
        if t is ast.Global:
            if scope.kind != "module":
                scope.globals.update(node.names)
            return
        if t is ast.Nonlocal:
            if scope.kind == "module":
                raise CompileError("nonlocal declaration not allowed at module level", node)
            scope.nonlocals.update(node.names)
            return
        if t is ast.Name:
            if type(node.ctx) is not ast.Load:
                scope.assigned.add(node.id)
            return
        if t is ast.NamedExpr:
            target = scope
            while target.kind == "comprehension":
                target = target.parent
            target.assigned.add(node.target.id)
            if target is not scope:
                # the comprehension reads and writes the enclosing function's variable
                scope.nonlocals.add(node.target.id) if target.is_function() else scope.globals.add(node.target.id)
            self.visit(node.value, scope)
            return
        if t in (ast.Import, ast.ImportFrom):
            for alias in node.names:
                scope.assigned.add(alias.asname or alias.name.split(".")[0])
            return
        if t is ast.ExceptHandler:
            if node.name:
                scope.assigned.add(node.name)
        elif t is ast.Yield or t is ast.YieldFrom:
            owner = scope
            while owner.kind == "comprehension":   # (where the compiler then says it is misplaced)
                owner = owner.parent
            owner.generator = True
        for child in child_nodes(node):
            self.visit(child, scope)

    def _visit_defaults(self, args, scope):
        for d in args.defaults:
            self.visit(d, scope)
        for d in args.kw_defaults:
            if d is not None:
                self.visit(d, scope)


def build_scopes(tree):
    """Scope of every function-like node (and the module) of a parsed program."""
    return _Builder().build(tree)


def check_nesting(tree, limit=MAX_NESTING):
    """Refuses programs nested deeper than ``limit`` (an ``elif`` chain counts as one
    level) before anything recurses over them."""
    stack = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            raise CompileError(f"the program is nested too deeply (more than {limit} levels)", node)
        is_if = type(node) is ast.If
        for child in child_nodes(node):
            if is_if and len(node.orelse) == 1 and child is node.orelse[0] and type(child) is ast.If:
                stack.append((child, depth))
            else:
                stack.append((child, depth + 1))
