"""Reading a function's source back from its bytecode, for kernels that Python keeps no source of
(typed into a plain ``python -i`` session, or defined by ``exec`` of a string).

``recover_source(fn)`` rebuilds Python source from ``fn.__code__`` by simulating the value stack
over the instructions (``dis``) and recognising the shapes CPython compiles statements into:
assignments, augmented assignments, tuple unpacking, expression statements, ``if``/``else``,
``for ... in ...`` and ``while`` loops with ``break``/``continue``, ``return``, conditional
expressions and ``and``/``or`` chains in conditions: the Python the kernel compiler accepts.
Statements keep their original line numbers (padded with blank lines), so errors point where
the user typed.

The result is then **verified**: it is compiled again and its instructions must equal the
original's (after dropping NOPs, whose placement follows line numbers, and numbering jump
targets by instruction). Only a verified source is used, so a reading mistake cannot change
what a kernel does; anything else raises KernelSourceError saying why and what to do. The
instruction set differs between Python versions: 3.10 to 3.13 are known here.
"""

from __future__ import annotations

import ast
import dis
import sys
import types

from ..._errors import KernelSourceError

_SKIP = {"NOP", "RESUME", "PRECALL", "PUSH_NULL", "CACHE", "EXTENDED_ARG", "COPY_FREE_VARS",
         "MAKE_CELL", "RETURN_GENERATOR"}
_COND_FALSE = {"POP_JUMP_FORWARD_IF_FALSE", "POP_JUMP_BACKWARD_IF_FALSE", "POP_JUMP_IF_FALSE"}
_COND_TRUE = {"POP_JUMP_FORWARD_IF_TRUE", "POP_JUMP_BACKWARD_IF_TRUE", "POP_JUMP_IF_TRUE"}
_JUMP = {"JUMP_FORWARD", "JUMP_BACKWARD", "JUMP_ABSOLUTE", "JUMP_BACKWARD_NO_INTERRUPT", "JUMP"}

_BINOPS = {"+": ast.Add, "-": ast.Sub, "*": ast.Mult, "/": ast.Div, "//": ast.FloorDiv,
           "%": ast.Mod, "**": ast.Pow, "&": ast.BitAnd, "|": ast.BitOr, "^": ast.BitXor,
           "<<": ast.LShift, ">>": ast.RShift, "@": ast.MatMult}
_OLD_BINOPS = {"BINARY_ADD": "+", "BINARY_SUBTRACT": "-", "BINARY_MULTIPLY": "*",
               "BINARY_TRUE_DIVIDE": "/", "BINARY_FLOOR_DIVIDE": "//", "BINARY_MODULO": "%",
               "BINARY_POWER": "**", "BINARY_AND": "&", "BINARY_OR": "|", "BINARY_XOR": "^",
               "BINARY_LSHIFT": "<<", "BINARY_RSHIFT": ">>"}
_OLD_INPLACE = {k.replace("BINARY_", "INPLACE_"): v for k, v in _OLD_BINOPS.items()}
_CMPOPS = {"<": ast.Lt, "<=": ast.LtE, ">": ast.Gt, ">=": ast.GtE, "==": ast.Eq, "!=": ast.NotEq}
_UNARY = {"UNARY_NEGATIVE": ast.USub, "UNARY_POSITIVE": ast.UAdd, "UNARY_NOT": ast.Not,
          "UNARY_INVERT": ast.Invert}


class _Unreadable(Exception):
    """An instruction shape this reader does not know."""


class _Aug:
    """The value of an in-place operator, stored back by the next store (``x += v``)."""

    def __init__(self, target, op, value):
        self.target, self.op, self.value = target, op, value


class _Slot:
    """One value of UNPACK_SEQUENCE, waiting for its store."""

    def __init__(self, group, index):
        self.group, self.index = group, index


class _Group:
    def __init__(self, value, n, line):
        self.value, self.targets, self.line = value, [None] * n, line


class _Loop:
    def __init__(self, head, exit_, continue_to):
        self.head, self.exit, self.continue_to = head, exit_, continue_to


def _instructions(code):
    """The instructions that matter, and a map from every offset to the index of the next one
    that matters (jump targets may name a skipped NOP)."""
    kept, index_at = [], {}
    pending = []
    for ins in dis.get_instructions(code):
        pending.append(ins.offset)
        if ins.opname in _SKIP:
            continue
        for off in pending:
            index_at[off] = len(kept)
        pending = []
        kept.append(ins)
    for off in pending:
        index_at[off] = len(kept)
    return kept, index_at


def _line(ins):
    pos = getattr(ins, "positions", None)
    if pos is not None and pos.lineno is not None:
        return pos.lineno
    return ins.starts_line if isinstance(ins.starts_line, int) else None


class _Reader:
    def __init__(self, code):
        self.code = code
        self.ins, self.index_at = _instructions(code)
        self.n = len(self.ins)
        self.kwnames = None

    def target(self, i):
        ins = self.ins[i]
        if ins.argval is None or not isinstance(ins.argval, int):
            raise _Unreadable(f"jump {ins.opname} without a target")
        return self.index_at.get(ins.argval, self.n)

    def is_backward(self, i):
        return self.target(i) <= i

    # ---- statements ---------------------------------------------------------------------------

    def block(self, lo, hi, loop):
        """The statements of instructions [lo, hi)."""
        stmts, stack = [], []
        i = lo
        while i < hi:
            i = self.step(i, hi, loop, stmts, stack)
        if stack:
            raise _Unreadable("values left on the stack at the end of a block")
        return stmts

    def step(self, i, hi, loop, stmts, stack):
        ins = self.ins[i]
        op = ins.opname
        line = _line(ins)
        if op in _COND_FALSE or op in _COND_TRUE:
            return self.conditional(i, hi, loop, stmts, stack)
        if op in _JUMP:
            t = self.target(i)
            if loop is not None and t == loop.exit and not stack:
                stmts.append(self._at(ast.Break(), line))
                return i + 1
            if loop is not None and t == loop.continue_to and not stack:
                stmts.append(self._at(ast.Continue(), line))
                return i + 1
            raise _Unreadable(f"a jump the reader does not place ({op})")
        if op == "GET_ITER":
            return self.for_loop(i, stack, stmts)
        if op == "POP_TOP":
            if (loop is not None and loop.head is not None and not stack and i + 1 < hi
                    and self.ins[i + 1].opname in _JUMP
                    and self.target(i + 1) == loop.exit):
                stmts.append(self._at(ast.Break(), line))  # break out of a for: pops the iterator
                return i + 2
            value = self.pop(stack)
            stmts.append(self._at(ast.Expr(self.expr(value)), line))
            return i + 1
        if op in ("RETURN_VALUE", "RETURN_CONST"):
            value = ast.Constant(ins.argval) if op == "RETURN_CONST" else self.pop(stack)
            if isinstance(value, ast.Constant) and value.value is None:
                stmts.append(self._at(ast.Return(None), line))
            else:
                stmts.append(self._at(ast.Return(self.expr(value)), line))
            return i + 1
        if (op in self._NAME_STORES or op == "STORE_FAST_STORE_FAST") and len(stack) >= 2:
            done = self.reversed_stores(i, hi, stack, stmts)
            if done is not None:
                return done
        if op in ("STORE_FAST", "STORE_NAME", "STORE_GLOBAL", "STORE_DEREF"):
            self.store(ast.Name(ins.argval, ast.Store()), self.pop(stack), line, stmts)
            return i + 1
        if op == "STORE_SUBSCR":
            index = self.pop(stack)
            container = self.pop(stack)
            value = self.pop(stack)
            target = ast.Subscript(self.expr(container), self.expr(index), ast.Store())
            self.store(target, value, line, stmts)
            return i + 1
        if op == "STORE_ATTR":
            obj = self.pop(stack)
            value = self.pop(stack)
            self.store(ast.Attribute(self.expr(obj), ins.argval, ast.Store()), value, line, stmts)
            return i + 1
        if op in ("SWAP", "ROT_TWO", "ROT_THREE"):
            done = self.tuple_assign(i, hi, stack, stmts)
            if done is not None:
                return done
        if op == "STORE_FAST_STORE_FAST":
            for name in ins.argval:
                self.store(ast.Name(name, ast.Store()), self.pop(stack), line, stmts)
            return i + 1
        if op == "UNPACK_SEQUENCE":
            group = _Group(self.pop(stack), ins.arg, line)
            for k in reversed(range(ins.arg)):
                stack.append(_Slot(group, k))
            return i + 1
        self.expression_op(ins, stack)
        return i + 1

    _NAME_STORES = ("STORE_FAST", "STORE_NAME", "STORE_GLOBAL", "STORE_DEREF")

    def tuple_assign(self, i, hi, stack, stmts):
        """``a, b = x, y`` of simple names: the values, SWAP k, then k stores."""
        ins = self.ins[i]
        k = {"ROT_TWO": 2, "ROT_THREE": 3}.get(ins.opname, ins.arg)
        names, j = [], i + 1
        while j < hi and len(names) < k:
            op = self.ins[j].opname
            if op in self._NAME_STORES:
                names.append(self.ins[j].argval)
            elif op == "STORE_FAST_STORE_FAST":
                names.extend(self.ins[j].argval)
            else:
                break
            j += 1
        if len(names) != k or len(stack) < k:
            return None
        values = [self.expr(v) for v in stack[-k:]]
        del stack[-k:]
        node = ast.Assign([ast.Tuple([ast.Name(n, ast.Store()) for n in names], ast.Store())],
                          ast.Tuple(values, ast.Load()))
        stmts.append(self._at(node, _line(ins)))
        return j

    def reversed_stores(self, i, hi, stack, stmts):
        """``a, b, c = x, y, z``: the values, then the names stored last one first."""
        names, j = [], i
        while j < hi and len(names) < len(stack):
            op = self.ins[j].opname
            if op in self._NAME_STORES:
                names.append(self.ins[j].argval)
            elif op == "STORE_FAST_STORE_FAST" and len(names) + 2 <= len(stack):
                names.extend(self.ins[j].argval)
            else:
                break
            j += 1
        values = stack[-len(names):] if names else []
        if len(names) < 2 or len(set(names)) != len(names) or \
                any(isinstance(v, (_Slot, _Aug)) for v in values) or \
                len({id(v) for v in values}) != len(values):
            return None
        del stack[-len(names):]
        node = ast.Assign([ast.Tuple([ast.Name(n, ast.Store()) for n in reversed(names)],
                                     ast.Store())], ast.Tuple(values, ast.Load()))
        stmts.append(self._at(node, _line(self.ins[i])))
        return j

    def _at(self, node, line):
        node.lineno = line or 0
        return node

    def store(self, target, value, line, stmts):
        if isinstance(value, _Slot):
            group = value.group
            group.targets[value.index] = target
            if all(t is not None for t in group.targets):
                stmts.append(self._at(ast.Assign([ast.Tuple(group.targets, ast.Store())],
                                                 self.expr(group.value)), group.line))
            return
        if isinstance(value, _Aug):
            if ast.dump(value.target) != ast.dump(_as_load(target)):
                raise _Unreadable("an in-place operator stored elsewhere")
            stmts.append(self._at(ast.AugAssign(target, value.op(), self.expr(value.value)),
                                  line))
            return
        # Chained assignment `a = b = v`: DUP_TOP/COPY 1 then two stores; the first store
        # leaves the copy, the second finds the same node.
        if stmts and isinstance(stmts[-1], ast.Assign) and getattr(stmts[-1], "_chain", None) \
                is value:
            stmts[-1].targets.append(target)
            return
        node = self._at(ast.Assign([target], self.expr(value)), line)
        node._chain = value
        stmts.append(node)

    def pop(self, stack):
        if not stack:
            raise _Unreadable("stack underflow")
        return stack.pop()

    def expr(self, value):
        if isinstance(value, (_Slot, _Aug, _Group)):
            raise _Unreadable("an unpacked or in-place value used as an expression")
        return value

    # ---- expressions --------------------------------------------------------------------------

    def expression_op(self, ins, stack):
        op = ins.opname
        if op in ("LOAD_FAST", "LOAD_FAST_CHECK", "LOAD_NAME", "LOAD_GLOBAL", "LOAD_DEREF",
                  "LOAD_CLASSDEREF", "LOAD_FAST_AND_CLEAR"):
            stack.append(ast.Name(ins.argval, ast.Load()))
        elif op == "LOAD_FAST_LOAD_FAST":
            for name in ins.argval:
                stack.append(ast.Name(name, ast.Load()))
        elif op == "LOAD_CONST":
            stack.append(ast.Constant(ins.argval))
        elif op in ("LOAD_ATTR", "LOAD_METHOD"):
            stack.append(ast.Attribute(self.expr(self.pop(stack)), ins.argval, ast.Load()))
        elif op == "KW_NAMES":
            self.kwnames = self.code.co_consts[ins.arg]
        elif op in ("CALL", "CALL_FUNCTION", "CALL_METHOD", "CALL_FUNCTION_KW", "CALL_KW"):
            n = ins.arg
            kwnames = self.kwnames or ()
            if op == "CALL_FUNCTION_KW" or op == "CALL_KW":
                names = self.pop(stack)
                kwnames = names.value if isinstance(names, ast.Constant) else ()
            self.kwnames = None
            args = [self.expr(self.pop(stack)) for _ in range(n)][::-1]
            func = self.expr(self.pop(stack))
            nkw = len(kwnames)
            positional, kwvalues = args[:n - nkw], args[n - nkw:]
            keywords = [ast.keyword(k, v) for k, v in zip(kwnames, kwvalues)]
            stack.append(ast.Call(func, positional, keywords))
        elif op == "BINARY_OP" or op in _OLD_BINOPS or op in _OLD_INPLACE:
            symbol = ins.argrepr if op == "BINARY_OP" else \
                (_OLD_BINOPS.get(op) or _OLD_INPLACE[op] + "=")
            right = self.expr(self.pop(stack))
            left = self.pop(stack)
            if symbol.endswith("=") and symbol not in ("==",):
                stack.append(_Aug(_as_load(left), _BINOPS[symbol[:-1]], right))
            else:
                stack.append(ast.BinOp(self.expr(left), _BINOPS[symbol](), right))
        elif op == "BINARY_SUBSCR":
            index = self.expr(self.pop(stack))
            stack.append(ast.Subscript(self.expr(self.pop(stack)), index, ast.Load()))
        elif op == "BINARY_SLICE":
            stop, start = self.pop(stack), self.pop(stack)
            container = self.expr(self.pop(stack))
            stack.append(ast.Subscript(container, _slice(start, stop, None), ast.Load()))
        elif op == "BUILD_SLICE":
            parts = [self.pop(stack) for _ in range(ins.arg)][::-1]
            stack.append(_slice(*parts, *([None] * (3 - len(parts)))))
        elif op == "BUILD_TUPLE":
            items = [self.expr(self.pop(stack)) for _ in range(ins.arg)][::-1]
            stack.append(ast.Tuple(items, ast.Load()))
        elif op == "COMPARE_OP":
            symbol = ins.argrepr.replace("bool(", "").replace(")", "")
            right = self.expr(self.pop(stack))
            left = self.expr(self.pop(stack))
            stack.append(ast.Compare(left, [_CMPOPS[symbol]()], [right]))
        elif op == "IS_OP":
            right, left = self.expr(self.pop(stack)), self.expr(self.pop(stack))
            stack.append(ast.Compare(left, [ast.IsNot() if ins.arg else ast.Is()], [right]))
        elif op in _UNARY:
            stack.append(ast.UnaryOp(_UNARY[op](), self.expr(self.pop(stack))))
        elif op in ("COPY", "DUP_TOP"):
            k = 1 if op == "DUP_TOP" else ins.arg
            stack.append(stack[-k])
        elif op in ("SWAP", "ROT_TWO", "ROT_THREE"):
            k = {"ROT_TWO": 2, "ROT_THREE": 3}.get(op, ins.arg)
            if op == "ROT_THREE":
                stack[-3:] = [stack[-1], stack[-3], stack[-2]]
            else:
                stack[-1], stack[-k] = stack[-k], stack[-1]
        elif op == "TO_BOOL":
            pass  # 3.13: the conversion before a conditional jump
        else:
            raise _Unreadable(f"instruction {op}")

    # ---- control flow ---------------------------------------------------------------------------

    def _cond_chain(self, i, hi, stack):
        """Reads a condition starting at instruction i: expressions each ended by a conditional
        jump. Returns (test, body start index, false target index) for `and` chains (every jump
        on false to one target) and `or` chains (jumps on true to the body, the last on false),
        else raises _Unreadable."""
        atoms = []
        j = i
        local = list(stack)
        while True:
            while j < hi and self.ins[j].opname not in _COND_FALSE | _COND_TRUE:
                op = self.ins[j].opname
                if op in _JUMP or op in ("RETURN_VALUE", "RETURN_CONST", "FOR_ITER", "GET_ITER") \
                        or op.startswith("STORE"):
                    raise _Unreadable("a condition with statements inside")
                self.expression_op(self.ins[j], local)
                j += 1
            if j >= hi:
                raise _Unreadable("a condition without its jump")
            test = self.expr(self.pop(local))
            atoms.append((test, self.ins[j].opname in _COND_TRUE, self.target(j)))
            j += 1
            body = j
            # Another atom follows when every jump so far goes past it or to the body.
            false_targets = {t for _, on_true, t in atoms if not on_true}
            true_targets = {t for _, on_true, t in atoms if on_true}
            if atoms[-1][1] is False and all(t == body for t in true_targets):
                if len(false_targets) == 1 and not self._and_continues(j, hi, atoms[-1][2]):
                    break
            if j >= hi or len(atoms) > 64:
                raise _Unreadable("a condition the reader cannot group")
        if len(local) != len(stack):
            raise _Unreadable("a condition that leaves values")
        false_target = atoms[-1][2]
        if all(not on_true for _, on_true, _ in atoms):
            if any(t != false_target for _, _, t in atoms):
                raise _Unreadable("an `and` chain with several targets")
            test = atoms[0][0] if len(atoms) == 1 else ast.BoolOp(ast.And(), [a[0] for a in atoms])
        elif all(on_true for _, on_true, _ in atoms[:-1]):
            test = ast.BoolOp(ast.Or(), [a[0] for a in atoms])
        else:
            raise _Unreadable("a condition mixing `and` and `or`")
        return test, body, false_target

    def _and_continues(self, j, hi, false_target):
        """Whether the instructions at j are one more expression whose conditional jump on false
        goes to `false_target` (one more operand of an `and` chain)."""
        while j < hi:
            op = self.ins[j].opname
            if op in _COND_FALSE:
                return self.target(j) == false_target
            if op in _COND_TRUE or op in _JUMP or op.startswith("STORE") or op in (
                    "POP_TOP", "RETURN_VALUE", "RETURN_CONST", "GET_ITER", "FOR_ITER",
                    "UNPACK_SEQUENCE", "SWAP", "COPY"):
                return False
            j += 1
        return False

    def conditional(self, i, hi, loop, stmts, stack):
        """A conditional jump met in a block: the condition's last atom was already read as an
        expression, so rewind to where the expression began is not possible; instead the
        jump's shape decides. Handles `if` statements and conditional expressions."""
        raise _Unreadable("internal: conditional reached without a condition start")

    def _while_true_end(self, i, hi):
        """The index of the closing backward jump when a `while True:` loop starts at i."""
        end = None
        for j in range(i, hi):
            ins = self.ins[j]
            if ins.opname in _JUMP and self.target(j) == i and j > i:
                end = j
        if end is None:
            return None
        # A loop whose head is a condition is read by the `if`/`while` reader instead.
        return end

    def while_true(self, i, end, stmts):
        exit_ = end + 1
        body_stmts, stack = [], []
        loop = _Loop(None, exit_, i)
        # The body starts at the loop's own head: its first statement is not the loop again.
        j = _step(self, i, end, loop, body_stmts, stack, allow_while_true=False)
        while j < end:
            j = self.step(j, end, loop, body_stmts, stack)
        if stack:
            raise _Unreadable("values left on the stack in a loop")
        body = body_stmts
        node = self._at(ast.While(ast.Constant(True), body or [ast.Pass()], []),
                        _line(self.ins[i]))
        stmts.append(node)
        return exit_

    def for_loop(self, i, stack, stmts):
        iterable = self.expr(self.pop(stack))
        if stack:
            raise _Unreadable("a for loop inside an expression")
        head = i + 1
        if self.ins[head].opname != "FOR_ITER":
            raise _Unreadable("GET_ITER without FOR_ITER")
        exit_ = self.target(head)
        after = exit_
        if exit_ < self.n and self.ins[exit_].opname == "END_FOR":
            after = exit_ + 1
            if after < self.n and self.ins[after].opname == "POP_TOP" and sys.version_info >= (3, 13):
                after += 1
        last = exit_ - 1
        if not (self.ins[last].opname in _JUMP and self.target(last) == head):
            raise _Unreadable("a for loop without its closing jump")
        store = self.ins[head + 1]
        if store.opname not in ("STORE_FAST", "STORE_NAME", "STORE_DEREF", "STORE_GLOBAL"):
            raise _Unreadable("a for loop whose target is not a name")
        body = self.block(head + 2, last, _Loop(head, after, head))
        stmts.append(self._at(ast.For(ast.Name(store.argval, ast.Store()), iterable,
                                      body or [ast.Pass()], []), _line(self.ins[head])))
        return after


def _as_load(node):
    node = _copy(node)
    for sub in ast.walk(node):
        if hasattr(sub, "ctx"):
            sub.ctx = ast.Load()
    return node


def _copy(node):
    return ast.parse(ast.unparse(node), mode="eval").body


def _slice(start, stop, step):
    def part(v):
        return None if v is None or (isinstance(v, ast.Constant) and v.value is None) else v
    return ast.Slice(part(start), part(stop), part(step))


# ---- conditions at statement level ----------------------------------------------------------------
#
# The block reader above meets a conditional jump after reading its condition as an expression.
# Statement-level conditions are easier to read from their start, so `step` first checks
# whether a condition starts at the current instruction (the stack is empty, and reading
# expressions from here reaches a conditional jump before any statement ends).


def _condition_starts(reader, i, hi, stack):
    if stack:
        return False
    j = i
    while j < hi:
        op = reader.ins[j].opname
        if op in _COND_FALSE or op in _COND_TRUE:
            return True
        if op in _JUMP or op.startswith("STORE") or op in ("POP_TOP", "RETURN_VALUE",
                                                             "RETURN_CONST", "GET_ITER",
                                                             "UNPACK_SEQUENCE"):
            return False
        j += 1
    return False


def _read_if(reader, i, hi, loop, stmts, stack):
    test, body_start, false_target = reader._cond_chain(i, hi, stack)
    line = _line(reader.ins[i])
    # A while loop: the body ends with the condition again, jumping back to the body.
    recheck = _while_recheck(reader, i, body_start, false_target, hi)
    if recheck is not None:
        body = reader.block(body_start, recheck, _Loop(None, false_target, i))
        stmts.append(reader._at(ast.While(test, body or [ast.Pass()], []), line))
        return false_target
    # The false target inside this block: then-part up to it (minus a closing jump over the
    # else-part); past the block (a jump to the loop's head or exit): the rest of the block.
    if false_target > hi or (loop is not None and false_target in (loop.continue_to,)
                             and false_target < body_start):
        then_end, else_range = hi, None
    else:
        then_end, else_range = false_target, None
        last = then_end - 1
        if last >= body_start and reader.ins[last].opname == "JUMP_FORWARD":
            end = reader.target(last)
            if end > then_end and not (loop is not None and end == loop.exit) and end <= hi:
                else_range = (then_end, end)
                then_end = last
    then_stack = list(stack)
    then_stmts = []
    j = body_start
    while j < then_end:
        j = reader.step(j, then_end, loop, then_stmts, then_stack)
    if len(then_stack) != len(stack):
        # A conditional expression: both parts leave one value.
        if else_range is None or len(then_stack) != len(stack) + 1 or then_stmts:
            raise _Unreadable("a conditional expression the reader does not know")
        else_stack, else_stmts = list(stack), []
        j = else_range[0]
        while j < else_range[1]:
            j = reader.step(j, else_range[1], loop, else_stmts, else_stack)
        if len(else_stack) != len(stack) + 1 or else_stmts:
            raise _Unreadable("a conditional expression the reader does not know")
        stack.append(ast.IfExp(test, reader.expr(then_stack[-1]), reader.expr(else_stack[-1])))
        return else_range[1]
    orelse = reader.block(*else_range, loop) if else_range else []
    stmts.append(reader._at(ast.If(test, then_stmts or [ast.Pass()], orelse), line))
    return else_range[1] if else_range else then_end


def _while_recheck(reader, i, body_start, false_target, hi):
    """Where the condition is checked again at the end of a `while` body (or None)."""
    length = body_start - i
    last = false_target - 1
    if last <= body_start or last >= reader.n:
        return None
    ins = reader.ins[last]
    if ins.opname in _JUMP and reader.target(last) == body_start:
        # 3.12+: the condition again, jumping out on false, then a jump back to the body.
        last -= 1
        if reader.ins[last].opname not in _COND_FALSE or reader.target(last) != false_target:
            return None
    elif ins.opname not in _COND_TRUE and ins.opname not in _COND_FALSE:
        return None
    elif reader.target(last) != body_start:
        return None
    start = last - length + 1
    if start < body_start:
        return None
    def plain(seq):
        return [repr(x.argval) for x in seq
                if x.opname not in _COND_FALSE and x.opname not in _COND_TRUE]
    if plain(reader.ins[i:body_start]) != plain(reader.ins[start:last + 1]):
        return None
    return start


_plain_step = _Reader.step


def _step(self, i, hi, loop, stmts, stack, allow_while_true=True):
    if not stack:
        loop_end = self._while_true_end(i, hi) if allow_while_true else None
        if _condition_starts(self, i, hi, stack):
            # A `while cond:` loop (its condition is checked again at the end of the body),
            # else a `while True:` loop whose body starts with an `if`, else an `if`.
            try:
                _, body_start, false_target = self._cond_chain(i, hi, stack)
                is_while = _while_recheck(self, i, body_start, false_target, hi) is not None
            except _Unreadable:
                is_while = False
            if is_while or loop_end is None:
                return _read_if(self, i, hi, loop, stmts, stack)
        if loop_end is not None:
            return self.while_true(i, loop_end, stmts)
    elif self._ifexp_starts(i, hi):
        return _read_if(self, i, hi, loop, stmts, stack)
    return _plain_step(self, i, hi, loop, stmts, stack)


def _ifexp_starts(self, i, hi):
    """A conditional expression inside an expression starts at i: expressions reach a
    conditional jump whose false target is preceded by a JUMP_FORWARD."""
    j = i
    while j < hi:
        op = self.ins[j].opname
        if op in _COND_FALSE or op in _COND_TRUE:
            t = self.target(j)
            return 0 < t <= hi and self.ins[t - 1].opname == "JUMP_FORWARD"
        if op in _JUMP or op.startswith("STORE") or op in ("POP_TOP", "RETURN_VALUE",
                                                             "RETURN_CONST", "GET_ITER"):
            return False
        j += 1
    return False


_Reader.step = _step
_Reader._ifexp_starts = _ifexp_starts


# ---- source text and verification ---------------------------------------------------------------

class _Emitter:
    def __init__(self, first_line):
        self.lines = []
        self.first = first_line

    def put(self, text, line, indent):
        want = (line - self.first + 1) if line else 0
        while len(self.lines) + 1 < want:
            self.lines.append("")
        self.lines.append("    " * indent + text)

    def stmts(self, body, indent):
        for s in body:
            self.stmt(s, indent)

    def stmt(self, s, indent):
        line = getattr(s, "lineno", 0)
        if isinstance(s, ast.If):
            self.put(f"if {ast.unparse(s.test)}:", line, indent)
            self.stmts(s.body, indent + 1)
            if s.orelse:
                self.put("else:", 0, indent)
                self.stmts(s.orelse, indent + 1)
        elif isinstance(s, ast.For):
            self.put(f"for {ast.unparse(s.target)} in {ast.unparse(s.iter)}:", line, indent)
            self.stmts(s.body, indent + 1)
        elif isinstance(s, ast.While):
            self.put(f"while {ast.unparse(s.test)}:", line, indent)
            self.stmts(s.body, indent + 1)
        else:
            self.put(ast.unparse(s), line, indent)


def _normalized(code):
    """The instructions of `code` without NOPs, jump targets as instruction numbers."""
    ins, index_at = _instructions(code)
    out = []
    for x in ins:
        arg = x.argval
        if x.opcode in dis.hasjrel or x.opcode in dis.hasjabs:
            arg = index_at.get(x.argval, len(ins))
        elif isinstance(arg, types.CodeType):
            arg = tuple(_normalized(arg))
        elif x.opname in ("LOAD_GLOBAL", "LOAD_ATTR"):
            arg = (arg, x.argrepr)
        elif x.opname == "KW_NAMES":
            arg = code.co_consts[x.arg]
        out.append((x.opname, repr(arg) if not isinstance(arg, tuple) else arg))
    return out


def _find_code(module_code, name):
    for const in module_code.co_consts:
        if isinstance(const, types.CodeType):
            if const.co_name == name:
                return const
            found = _find_code(const, name)
            if found is not None:
                return found
    return None


def recover_source(fn):
    """(source lines, first line number) of `fn`, read back from its bytecode and verified;
    raises KernelSourceError when that cannot be done."""
    code = fn.__code__
    name = fn.__name__
    why = None
    try:
        reader = _Reader(code)
        body = reader.block(0, reader.n, None)
        # The implicit `return None` at the end is not written.
        while body and isinstance(body[-1], ast.Return) and body[-1].value is None:
            body.pop()
        if fn.__doc__ and code.co_consts and code.co_consts[0] == fn.__doc__:
            doc = ast.Expr(ast.Constant(fn.__doc__))
            doc.lineno = 0
            body.insert(0, doc)
        params = list(code.co_varnames[:code.co_argcount])
        emitter = _Emitter(code.co_firstlineno)
        emitter.put(f"def {name}({', '.join(params)}):", code.co_firstlineno, 0)
        emitter.stmts(body or [ast.Pass()], 1)
        text = "\n".join(emitter.lines) + "\n"
        check = text
        if code.co_freevars:  # closure variables: compile inside a function that binds them
            check = ("def __dpk_outer():\n"
                     + "".join(f"    {v} = None\n" for v in code.co_freevars)
                     + "".join("    " + l + "\n" for l in emitter.lines))
        # Python 3.11+ compiles `module.f(x)` differently when `module` was imported in the same
        # file (no method-call optimisation), so verify also as if the modules it names were.
        modules = [g for g in code.co_names
                   if isinstance(getattr(fn, "__globals__", {}).get(g), types.ModuleType)]
        variants = [check] + ([f"import {', '.join(modules)}\n" + check] if modules else [])
        expected = _normalized(code)
        for variant in variants:
            compiled = _find_code(compile(variant, code.co_filename, "exec"), name)
            if compiled is not None and _normalized(compiled) == expected:
                return [l + "\n" for l in emitter.lines], code.co_firstlineno
        why = "the source read back from the bytecode does not compile to the same bytecode"
    except _Unreadable as exc:
        why = f"its bytecode has a shape dpk cannot read back ({exc})"
    except (SyntaxError, KeyError, IndexError, AttributeError, TypeError, ValueError) as exc:
        why = f"its bytecode could not be read back ({type(exc).__name__}: {exc})"
    raise KernelSourceError(
        f"cannot read the source of {name}(): Python keeps no source for functions defined in "
        f"an interactive session or by exec ({code.co_filename}), and {why} "
        f"(Python {sys.version_info.major}.{sys.version_info.minor})",
        hint="define the kernel in a file or a notebook cell (where Python keeps the source), "
             "or simplify the construct named above")
