// Lexer.h - splits dpk IR text into tokens for the parser (internal to dpk_ir).
#ifndef DPK_CORE_IR_LEXER_H
#define DPK_CORE_IR_LEXER_H

#include <string>
#include <string_view>

namespace dpk::ir {

enum class TokenKind {
  Eof,
  Identifier, // bare words: keywords, op names, types, enum spellings, inf, -inf, nan
  ValueRef,   // %name or %123 (text holds what follows %)
  FuncRef,    // @name (text holds what follows @)
  Integer,    // 42, -7
  Float,      // 1.5, -2e3, 0x1.8p+1
  String,     // "text" (text holds the unescaped contents)
  LParen, RParen, LBrace, RBrace, LBracket, RBracket, Less, Greater, Comma, Colon, Equal, Arrow,
  Error       // an unexpected character; text says which
};

struct Token {
  TokenKind kind = TokenKind::Eof;
  std::string text;
  int line = 1;
  int column = 1;
};

class Lexer {
public:
  explicit Lexer(std::string_view text) : text_(text) {}
  /// The next token; skips whitespace and `//` comments.
  Token next();

private:
  char peek(size_t ahead = 0) const { return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0'; }
  char advance();
  void skipTrivia();
  Token lexNumber(Token token);
  std::string lexWord();

  std::string_view text_;
  size_t pos_ = 0;
  int line_ = 1;
  int column_ = 1;
};

const char *tokenKindName(TokenKind kind);

} // namespace dpk::ir

#endif // DPK_CORE_IR_LEXER_H
