// Lexer.cpp - tokens of dpk IR text (see Lexer.h).
#include "ir/Lexer.h"

namespace dpk::ir {

namespace {
bool isWordStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isWordChar(char c) { return isWordStart(c) || isDigit(c) || c == '.'; }
bool isHexDigit(char c) { return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
} // namespace

const char *tokenKindName(TokenKind kind) {
  switch (kind) {
  case TokenKind::Eof: return "end of file";
  case TokenKind::Identifier: return "identifier";
  case TokenKind::ValueRef: return "value (%name)";
  case TokenKind::FuncRef: return "function (@name)";
  case TokenKind::Integer: return "integer";
  case TokenKind::Float: return "float";
  case TokenKind::String: return "string";
  case TokenKind::LParen: return "'('";
  case TokenKind::RParen: return "')'";
  case TokenKind::LBrace: return "'{'";
  case TokenKind::RBrace: return "'}'";
  case TokenKind::LBracket: return "'['";
  case TokenKind::RBracket: return "']'";
  case TokenKind::Less: return "'<'";
  case TokenKind::Greater: return "'>'";
  case TokenKind::Comma: return "','";
  case TokenKind::Colon: return "':'";
  case TokenKind::Equal: return "'='";
  case TokenKind::Arrow: return "'->'";
  case TokenKind::Error: return "invalid character";
  }
  return "token";
}

char Lexer::advance() {
  char c = text_[pos_++];
  if (c == '\n') {
    ++line_;
    column_ = 1;
  } else {
    ++column_;
  }
  return c;
}

void Lexer::skipTrivia() {
  while (pos_ < text_.size()) {
    char c = peek();
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
      advance();
      continue;
    }
    if (c == '/' && peek(1) == '/') {
      while (pos_ < text_.size() && peek() != '\n') advance();
      continue;
    }
    return;
  }
}

std::string Lexer::lexWord() {
  std::string word;
  while (isWordChar(peek())) word += advance();
  return word;
}

// Numbers: decimal integers, decimal floats with '.'/exponent, and C99 hexfloats (0x1.8p+1).
Token Lexer::lexNumber(Token token) {
  token.kind = TokenKind::Integer;
  if (peek() == '-') token.text += advance();
  if (peek() == '0' && (peek(1) == 'x' || peek(1) == 'X')) {
    token.text += advance();
    token.text += advance();
    while (isHexDigit(peek()) || peek() == '.') {
      if (peek() == '.') token.kind = TokenKind::Float;
      token.text += advance();
    }
    if (peek() == 'p' || peek() == 'P') {
      token.kind = TokenKind::Float;
      token.text += advance();
      if (peek() == '+' || peek() == '-') token.text += advance();
      while (isDigit(peek())) token.text += advance();
    }
    return token;
  }
  while (isDigit(peek()) || peek() == '.') {
    if (peek() == '.') token.kind = TokenKind::Float;
    token.text += advance();
  }
  if ((peek() == 'e' || peek() == 'E') &&
      (isDigit(peek(1)) || ((peek(1) == '+' || peek(1) == '-') && isDigit(peek(2))))) {
    token.kind = TokenKind::Float;
    token.text += advance();
    if (peek() == '+' || peek() == '-') token.text += advance();
    while (isDigit(peek())) token.text += advance();
  }
  return token;
}

Token Lexer::next() {
  skipTrivia();
  Token token;
  token.line = line_;
  token.column = column_;
  if (pos_ >= text_.size()) return token;
  char c = peek();
  auto single = [&](TokenKind kind) {
    token.kind = kind;
    token.text = std::string(1, advance());
    return token;
  };
  switch (c) {
  case '(': return single(TokenKind::LParen);
  case ')': return single(TokenKind::RParen);
  case '{': return single(TokenKind::LBrace);
  case '}': return single(TokenKind::RBrace);
  case '[': return single(TokenKind::LBracket);
  case ']': return single(TokenKind::RBracket);
  case '<': return single(TokenKind::Less);
  case '>': return single(TokenKind::Greater);
  case ',': return single(TokenKind::Comma);
  case ':': return single(TokenKind::Colon);
  case '=': return single(TokenKind::Equal);
  default: break;
  }
  if (c == '-' && peek(1) == '>') {
    advance();
    advance();
    token.kind = TokenKind::Arrow;
    token.text = "->";
    return token;
  }
  if (isDigit(c) || (c == '-' && isDigit(peek(1)))) return lexNumber(token);
  if (c == '-' && isWordStart(peek(1))) { // -inf, -nan
    advance();
    token.kind = TokenKind::Identifier;
    token.text = "-" + lexWord();
    return token;
  }
  if (isWordStart(c)) {
    token.kind = TokenKind::Identifier;
    token.text = lexWord();
    return token;
  }
  if (c == '%' || c == '@') {
    advance();
    token.kind = c == '%' ? TokenKind::ValueRef : TokenKind::FuncRef;
    token.text = lexWord();
    if (token.text.empty()) {
      token.kind = TokenKind::Error;
      token.text = std::string("expected a name after '") + c + "'";
    }
    return token;
  }
  if (c == '"') {
    advance();
    token.kind = TokenKind::String;
    while (pos_ < text_.size() && peek() != '"' && peek() != '\n') {
      if (peek() == '\\' && pos_ + 1 < text_.size()) advance();
      token.text += advance();
    }
    if (peek() != '"') {
      token.kind = TokenKind::Error;
      token.text = "unterminated string";
      return token;
    }
    advance();
    return token;
  }
  token.kind = TokenKind::Error;
  token.text = std::string("unexpected character '") + advance() + "'";
  return token;
}

} // namespace dpk::ir
