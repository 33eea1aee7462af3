// Parser.cpp - recursive-descent parser for dpk IR text (grammar in docs/ir.md).
//
// The parser builds ops directly from the text, taking each result type from its `: type`
// suffix; whether those types are consistent is the verifier's business, so hand-written IR
// with a wrong type gets the verifier's explanation rather than a parse error.
#include "ir/Parser.h"

#include "ir/Lexer.h"
#include "ir/Spelling.h"

#include <cerrno>
#include <cstdlib>
#include <limits>
#include <unordered_map>
#include <unordered_set>

namespace dpk::ir {

namespace {

/// An integer literal: decimal, or hexadecimal after "0x" (a leading 0 does not mean octal: the
/// text form's integers are decimal), with an optional '-'. False when the text is not all
/// digits or the value does not fit 64 bits (two's complement when negative).
bool integerValue(const std::string &text, int64_t &out) {
  const char *digits = text.c_str();
  bool negative = *digits == '-';
  if (negative) ++digits;
  int base = 10;
  if (digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) {
    base = 16;
    digits += 2;
  }
  bool isDigit = (*digits >= '0' && *digits <= '9') ||
                 (base == 16 && ((*digits >= 'a' && *digits <= 'f') || (*digits >= 'A' && *digits <= 'F')));
  if (!isDigit) return false; // also rules out strtoull's own sign and spaces
  errno = 0;
  char *end = nullptr;
  unsigned long long magnitude = std::strtoull(digits, &end, base);
  if (errno == ERANGE || *end != '\0') return false;
  if (negative) {
    if (magnitude > static_cast<unsigned long long>(std::numeric_limits<int64_t>::max()) + 1)
      return false;
    out = static_cast<int64_t>(0 - magnitude);
    return true;
  }
  out = static_cast<int64_t>(magnitude);
  return true;
}

bool isNumber(const std::string &s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

class Parser {
public:
  Parser(std::string_view text, std::string_view fileName)
      : lexer_(text), fileName_(fileName) {
    tok_ = lexer_.next();
  }

  Expected<std::unique_ptr<Module>> parse() {
    auto module = std::make_unique<Module>();
    module_ = module.get();
    while (tok_.kind != TokenKind::Eof) {
      if (!parseFunction()) return std::move(error_);
    }
    return module;
  }

private:
  // ---- token helpers ---------------------------------------------------------------------

  bool fail(const Token &at, const std::string &what) {
    if (!error_)
      error_ = Error(DPK_ERROR_PARSE, fileName_ + ":" + std::to_string(at.line) + ":" +
                                          std::to_string(at.column) + ": error: " + what);
    return false;
  }

  std::string describe(const Token &t) const {
    if (t.kind == TokenKind::Eof) return "end of file";
    if (t.kind == TokenKind::Error) return t.text;
    if (t.kind == TokenKind::ValueRef) return "'%" + t.text + "'";
    if (t.kind == TokenKind::FuncRef) return "'@" + t.text + "'";
    return "'" + t.text + "'";
  }

  bool failExpected(const std::string &what) {
    return fail(tok_, "expected " + what + ", got " + describe(tok_));
  }

  void consume() { tok_ = lexer_.next(); }

  bool expect(TokenKind kind, const char *what = nullptr) {
    if (tok_.kind != kind) return failExpected(what ? what : tokenKindName(kind));
    consume();
    return true;
  }

  bool isKeyword(const char *word) const {
    return tok_.kind == TokenKind::Identifier && tok_.text == word;
  }

  bool expectKeyword(const char *word) {
    if (!isKeyword(word)) return failExpected(std::string("'") + word + "'");
    consume();
    return true;
  }

  bool parseInteger(int64_t &out) {
    if (tok_.kind != TokenKind::Integer) return failExpected("integer");
    if (!integerValue(tok_.text, out))
      return fail(tok_, "bad integer literal " + tok_.text + " (decimal or 0x hexadecimal, 64 bits)");
    consume();
    return true;
  }

  // ---- types -----------------------------------------------------------------------------

  bool parseScalarKind(ScalarKind &out) {
    if (tok_.kind == TokenKind::Identifier) {
      if (auto kind = dpk::ir::parseScalarKind(tok_.text)) {
        out = *kind;
        consume();
        return true;
      }
    }
    return failExpected("scalar type (bool, i8..i64, u8..u64, f16, f32, f64)");
  }

  bool parseAddressSpace(AddressSpace &out) {
    if (tok_.kind == TokenKind::Identifier) {
      if (auto space = dpk::ir::parseAddressSpace(tok_.text)) {
        out = *space;
        consume();
        return true;
      }
    }
    return failExpected("address space (global, local, private, constant, generic)");
  }

  bool parseType(Type &out) {
    if (isKeyword("void")) {
      consume();
      out = Type::voidTy();
      return true;
    }
    bool isPtr = isKeyword("ptr");
    bool isView = isKeyword("view");
    if (!isPtr && !isView) {
      ScalarKind scalar = ScalarKind::I64;
      if (tok_.kind != TokenKind::Identifier || !dpk::ir::parseScalarKind(tok_.text))
        return failExpected("type");
      if (!parseScalarKind(scalar)) return false;
      out = Type::scalarTy(scalar);
      return true;
    }
    consume();
    AddressSpace space = AddressSpace::Global;
    ScalarKind elem = ScalarKind::I64;
    if (!expect(TokenKind::Less) || !parseAddressSpace(space) || !expect(TokenKind::Comma) ||
        !parseScalarKind(elem))
      return false;
    if (isPtr) {
      out = Type::pointerTy(space, elem);
      return expect(TokenKind::Greater);
    }
    Token rankTok = tok_;
    int64_t rank = 0;
    if (!expect(TokenKind::Comma) || !parseInteger(rank)) return false;
    if (rank < 1 || rank > 3) return fail(rankTok, "view rank must be 1, 2 or 3");
    out = Type::viewTy(space, elem, static_cast<unsigned>(rank));
    return expect(TokenKind::Greater);
  }

  // ---- values ----------------------------------------------------------------------------

  bool parseOperand(Value *&out) {
    if (tok_.kind != TokenKind::ValueRef) return failExpected("value (%name)");
    auto it = values_.find(tok_.text);
    if (it == values_.end()) return fail(tok_, "use of undefined value %" + tok_.text);
    out = it->second;
    consume();
    return true;
  }

  bool parseOperandList(std::vector<Value *> &out) {
    Value *v = nullptr;
    if (!parseOperand(v)) return false;
    out.push_back(v);
    while (tok_.kind == TokenKind::Comma) {
      consume();
      if (!parseOperand(v)) return false;
      out.push_back(v);
    }
    return true;
  }

  /// Defines a value named by `nameTok` (%name or %N) of `type`.
  bool defineValue(const Token &nameTok, Type type, Value *&out) {
    if (values_.count(nameTok.text)) return fail(nameTok, "redefinition of %" + nameTok.text);
    out = function_->newValue(type, isNumber(nameTok.text) ? std::string() : nameTok.text);
    values_[nameTok.text] = out;
    return true;
  }

  /// `%p[%i, ...]`: the pointer or view and its indices, appended to operands.
  bool parseSubscript(std::vector<Value *> &operands) {
    Value *base = nullptr;
    if (!parseOperand(base)) return false;
    operands.push_back(base);
    if (!expect(TokenKind::LBracket)) return false;
    if (tok_.kind != TokenKind::RBracket && !parseOperandList(operands)) return false;
    return expect(TokenKind::RBracket);
  }

  /// Optional `aligned N` of a load or store.
  bool parseAlignment(Op &op) {
    if (!isKeyword("aligned")) return true;
    consume();
    return parseInteger(op.align);
  }

  bool parseCommaOperand(std::vector<Value *> &operands) {
    Value *v = nullptr;
    if (!expect(TokenKind::Comma) || !parseOperand(v)) return false;
    operands.push_back(v);
    return true;
  }

  bool parseOrderScope(Op &op) {
    if (tok_.kind == TokenKind::Identifier) {
      if (auto order = parseMemoryOrder(tok_.text)) {
        op.order = *order;
        consume();
        return parseScope(op);
      }
    }
    return failExpected("memory order (relaxed, acquire, release, acq_rel, seq_cst)");
  }

  bool parseScope(Op &op) {
    if (tok_.kind == TokenKind::Identifier) {
      if (auto scope = parseMemoryScope(tok_.text)) {
        op.scope = *scope;
        consume();
        return true;
      }
    }
    return failExpected("memory scope (work_item, sub_group, work_group, device, system)");
  }

  bool parseLoc(SourceLoc &loc) {
    if (!isKeyword("loc")) return true;
    consume();
    if (!expect(TokenKind::LParen)) return false;
    if (tok_.kind != TokenKind::String) return failExpected("file name string");
    loc.file = tok_.text;
    consume();
    int64_t line = 0, column = 0;
    if (!expect(TokenKind::Colon)) return false;
    Token lineTok = tok_;
    if (!parseInteger(line) || !expect(TokenKind::Colon)) return false;
    Token columnTok = tok_;
    if (!parseInteger(column) || !expect(TokenKind::RParen)) return false;
    // Line 0 means "no location" (the printer leaves it out), so a written one starts at 1.
    const int64_t largest = std::numeric_limits<int>::max();
    if (line < 1 || line > largest)
      return fail(lineTok, "loc line must be 1 to " + std::to_string(largest));
    if (column < 0 || column > largest)
      return fail(columnTok, "loc column must be 0 to " + std::to_string(largest));
    loc.line = static_cast<int>(line);
    loc.column = static_cast<int>(column);
    return true;
  }

  // ---- functions and blocks --------------------------------------------------------------

  bool parseFunction() {
    Token start = tok_;
    // `extern func @f(...) -> T`: a declaration whose definition a linked file supplies.
    bool isExternal = isKeyword("extern");
    if (isExternal) {
      consume();
      if (!isKeyword("func")) return failExpected("'func' after 'extern'");
    }
    if (!isKeyword("kernel") && !isKeyword("func"))
      return failExpected("'kernel', 'func' or 'extern func'");
    auto function = std::make_unique<Function>();
    function->isKernel = tok_.text == "kernel";
    function->isExternal = isExternal;
    function->loc = {fileName_, start.line, start.column};
    consume();
    if (tok_.kind != TokenKind::FuncRef) return failExpected("function name (@name)");
    if (!functionNames_.insert(tok_.text).second)
      return fail(tok_, "redefinition of function @" + tok_.text);
    function->name = tok_.text;
    consume();
    function_ = function.get();
    values_.clear();
    if (!expect(TokenKind::LParen)) return false;
    while (tok_.kind != TokenKind::RParen) {
      if (!function->params.empty() && !expect(TokenKind::Comma)) return false;
      if (tok_.kind != TokenKind::ValueRef) return failExpected("parameter (%name)");
      Token nameTok = tok_;
      consume();
      Type type;
      if (!expect(TokenKind::Colon) || !parseType(type)) return false;
      Value *param = nullptr;
      if (!defineValue(nameTok, type, param)) return false;
      function->params.push_back(param);
    }
    consume();
    if (tok_.kind == TokenKind::Arrow) {
      consume();
      if (!parseType(function->returnType)) return false;
    }
    if (isKeyword("min_groups_per_cu")) {
      Token attr = tok_;
      consume();
      int64_t groups = 0;
      if (!expect(TokenKind::LParen) || !parseInteger(groups) || !expect(TokenKind::RParen))
        return false;
      if (groups < 1 || groups > kMaxGroupsPerComputeUnit)
        return fail(attr, "min_groups_per_cu must be 1 to " +
                              std::to_string(kMaxGroupsPerComputeUnit));
      function->minGroupsPerComputeUnit = static_cast<uint32_t>(groups);
    }
    if (!parseLoc(function->loc)) return false;
    if (isExternal) {
      if (tok_.kind == TokenKind::LBrace)
        return fail(tok_, "extern func @" + function->name +
                              " has no body (its definition comes from a linked file)");
    } else if (!parseRegion(function->body)) {
      return false;
    }
    module_->functions.push_back(std::move(function));
    function_ = nullptr;
    return true;
  }

  /// A function body (depth 0) or a region of an op at depth_ - 1. Regions deeper than
  /// kMaxRegionDepth are an error, so parsing recurses at most that deep.
  bool parseRegion(Block &block) {
    if (depth_ > kMaxRegionDepth)
      return fail(tok_, "regions nest deeper than " + std::to_string(kMaxRegionDepth) +
                            " levels (the IR's limit)");
    if (!expect(TokenKind::LBrace)) return false;
    ++depth_;
    while (tok_.kind != TokenKind::RBrace) {
      if (tok_.kind == TokenKind::Eof) return failExpected("'}'");
      if (!parseOp(block)) return false;
    }
    --depth_;
    consume();
    return true;
  }

  bool parseOp(Block &block) {
    Token start = tok_;
    Token resultTok;
    bool hasResult = false;
    if (tok_.kind == TokenKind::ValueRef) {
      resultTok = tok_;
      hasResult = true;
      consume();
      if (!expect(TokenKind::Equal)) return false;
    }
    if (tok_.kind != TokenKind::Identifier) return failExpected("op name");
    std::optional<OpKind> kind = parseOpKind(tok_.text);
    if (!kind) return fail(tok_, "unknown op '" + tok_.text + "'");
    auto op = std::make_unique<Op>();
    op->kind = *kind;
    op->loc = {fileName_, start.line, start.column};
    consume();
    Token literal;
    if (!parseOpBody(*op, literal)) return false;
    if (hasResult) {
      Type type;
      if (!expect(TokenKind::Colon, "':' and the result type") || !parseType(type)) return false;
      if (type.isVoid()) return fail(resultTok, "a result cannot have type void");
      if (op->kind == OpKind::Const && !setConstLiteral(*op, literal, type)) return false;
      if (!defineValue(resultTok, type, op->result)) return false;
      op->result->definingOp = op.get();
    } else if (op->kind == OpKind::Const) {
      return fail(start, "const needs a result: %name = const <literal> : <type>");
    }
    if (!parseLoc(op->loc)) return false;
    block.ops.push_back(std::move(op));
    return true;
  }

  bool setConstLiteral(Op &op, const Token &literal, Type type) {
    const std::string &text = literal.text;
    if (type.isBool()) {
      if (text == "true" || text == "1") op.intAttr = 1;
      else if (text == "false" || text == "0") op.intAttr = 0;
      else return fail(literal, "expected true or false for a bool constant, got '" + text + "'");
      return true;
    }
    if (type.isInteger()) {
      if (literal.kind != TokenKind::Integer)
        return fail(literal, "expected an integer literal for " + typeToString(type) + ", got '" +
                                 text + "'");
      if (!integerValue(text, op.intAttr))
        return fail(literal, "bad integer literal " + text + " (decimal or 0x hexadecimal, 64 bits)");
      return true;
    }
    if (type.isFloat()) {
      bool numeric = literal.kind == TokenKind::Integer || literal.kind == TokenKind::Float;
      bool special = text == "inf" || text == "-inf" || text == "nan" || text == "-nan";
      if (!numeric && !special)
        return fail(literal, "expected a float literal for " + typeToString(type) + ", got '" +
                                 text + "'");
      op.floatAttr = std::strtod(text.c_str(), nullptr);
      // As in Builder::constFloat: an f32 constant holds exactly an f32 value.
      if (type.scalar == ScalarKind::F32) op.floatAttr = static_cast<float>(op.floatAttr);
      return true;
    }
    return fail(literal, "const must have a scalar type, not " + typeToString(type));
  }

  /// Everything between the op name and `: type`. `literal` receives a const's literal token.
  bool parseOpBody(Op &op, Token &literal) {
    switch (op.kind) {
    case OpKind::Const:
      if (tok_.kind != TokenKind::Integer && tok_.kind != TokenKind::Float &&
          tok_.kind != TokenKind::Identifier)
        return failExpected("literal");
      literal = tok_;
      consume();
      return true;
    case OpKind::Add: case OpKind::Sub: case OpKind::Mul: case OpKind::Div: case OpKind::Rem:
    case OpKind::And: case OpKind::Or: case OpKind::Xor: case OpKind::Shl: case OpKind::Shr:
    case OpKind::Neg: case OpKind::Not: case OpKind::Select: case OpKind::Cast:
    case OpKind::Condition: case OpKind::SubGroupBallot: case OpKind::SubGroupShuffle:
      return parseOperandList(op.operands);
    case OpKind::Break: case OpKind::Continue: case OpKind::SubGroupLocalId:
    case OpKind::SubGroupSize:
      return true;
    case OpKind::Return:
      // `return %v` vs. `return` followed by `%v = ...` (unreachable, but legal text).
      if (tok_.kind == TokenKind::ValueRef) {
        Lexer ahead = lexer_;
        if (ahead.next().kind != TokenKind::Equal) return parseOperandList(op.operands);
      }
      return true;
    case OpKind::Cmp: {
      std::optional<CmpPredicate> pred;
      if (tok_.kind == TokenKind::Identifier) pred = parseCmpPredicate(tok_.text);
      if (!pred) return failExpected("comparison predicate (eq, ne, lt, le, gt, ge)");
      op.predicate = *pred;
      consume();
      return parseOperandList(op.operands);
    }
    case OpKind::Math: {
      std::optional<MathFn> fn;
      if (tok_.kind == TokenKind::Identifier) fn = parseMathFn(tok_.text);
      if (!fn) return failExpected("math function name");
      op.mathFn = *fn;
      consume();
      return parseOperandList(op.operands);
    }
    case OpKind::Call:
      if (tok_.kind != TokenKind::FuncRef) return failExpected("callee (@name)");
      op.callee = tok_.text;
      consume();
      if (!expect(TokenKind::LParen)) return false;
      if (tok_.kind != TokenKind::RParen && !parseOperandList(op.operands)) return false;
      return expect(TokenKind::RParen);
    case OpKind::Alloca: case OpKind::LocalAlloc:
    case OpKind::GlobalId: case OpKind::LocalId: case OpKind::GroupId: case OpKind::GlobalSize:
    case OpKind::LocalSize: case OpKind::NumGroups:
      return parseInteger(op.intAttr);
    case OpKind::Load:
      return parseAlignment(op) && parseSubscript(op.operands);
    case OpKind::PtrOffset: case OpKind::ViewLoad: case OpKind::ViewElementPtr:
      return parseSubscript(op.operands);
    case OpKind::Store:
      if (isKeyword("nontemporal")) {
        op.intAttr = 1;
        consume();
      }
      return parseAlignment(op) && parseSubscript(op.operands) &&
             parseCommaOperand(op.operands);
    case OpKind::ViewStore:
      return parseSubscript(op.operands) && parseCommaOperand(op.operands);
    case OpKind::ViewDim: case OpKind::ViewStride: {
      Value *view = nullptr;
      if (!parseOperand(view) || !expect(TokenKind::Comma)) return false;
      op.operands.push_back(view);
      return parseInteger(op.intAttr);
    }
    case OpKind::ViewPtr: {
      Value *view = nullptr;
      if (!parseOperand(view)) return false;
      op.operands.push_back(view);
      return true;
    }
    case OpKind::AtomicRmw: {
      std::optional<AtomicRmwKind> rmw;
      if (tok_.kind == TokenKind::Identifier) rmw = parseAtomicRmwKind(tok_.text);
      if (!rmw) return failExpected("atomic operation (add, sub, min, max, and, or, xor, exchange)");
      op.rmwKind = *rmw;
      consume();
      return parseOrderScope(op) && parseSubscript(op.operands) && parseCommaOperand(op.operands);
    }
    case OpKind::AtomicLoad: return parseOrderScope(op) && parseSubscript(op.operands);
    case OpKind::AtomicStore:
      return parseOrderScope(op) && parseSubscript(op.operands) && parseCommaOperand(op.operands);
    case OpKind::AtomicCmpXchg:
      return parseOrderScope(op) && parseSubscript(op.operands) &&
             parseCommaOperand(op.operands) && parseCommaOperand(op.operands);
    case OpKind::Fence: return parseOrderScope(op);
    case OpKind::Barrier: return parseScope(op);
    case OpKind::If: {
      Value *cond = nullptr;
      if (!parseOperand(cond)) return false;
      op.operands.push_back(cond);
      op.regions.resize(2);
      if (!parseRegion(op.regions[0])) return false;
      if (!isKeyword("else")) return true;
      consume();
      return parseRegion(op.regions[1]);
    }
    case OpKind::For: {
      if (tok_.kind != TokenKind::ValueRef) return failExpected("induction variable (%name)");
      Token ivTok = tok_;
      consume();
      Value *lo = nullptr, *hi = nullptr, *step = nullptr;
      if (!expect(TokenKind::Equal) || !parseOperand(lo) || !expectKeyword("to") ||
          !parseOperand(hi) || !expectKeyword("step") || !parseOperand(step))
        return false;
      op.operands = {lo, hi, step};
      op.regions.resize(1);
      Value *iv = nullptr;
      if (!defineValue(ivTok, lo->type, iv)) return false;
      op.regions[0].args.push_back(iv);
      return parseRegion(op.regions[0]);
    }
    case OpKind::While:
      op.regions.resize(2);
      return parseRegion(op.regions[0]) && expectKeyword("do") && parseRegion(op.regions[1]);
    }
    return true;
  }

  Lexer lexer_;
  Token tok_;
  std::string fileName_;
  Error error_;
  Module *module_ = nullptr;
  Function *function_ = nullptr;
  std::unordered_map<std::string, Value *> values_;
  std::unordered_set<std::string> functionNames_;
  unsigned depth_ = 0; // regions open around the current op (0 in a function's body)
};

} // namespace

Expected<std::unique_ptr<Module>> parseModule(std::string_view text, std::string_view fileName) {
  return Parser(text, fileName).parse();
}

} // namespace dpk::ir
