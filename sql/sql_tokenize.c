/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * sql_tokenize: splits SQL text into tokens for the parser (the first stage
 * of the front end, like SQLite's tokenize.c).  rsql_sql_get_token() looks
 * at one token: a switch over a 256-entry character-class table, then the
 * keyword table for bare words.  Tokens are slices of the text; nothing is
 * copied or allocated here.  Token codes are the RSQL_TK_* of the generated
 * parser header, plus the pseudo types SPACE_, ILLEGAL_, UNTERMINATED_.
 */
#include "config.h"
#include "sql/sql_int.h"

/* character classes */
enum {
    CC_ILLEGAL = 0, /* anything else */
    CC_NUL,         /* end of text */
    CC_SPACE,       /* space, tab, newline, CR, FF, VT */
    CC_ID,          /* A-Z a-z _ and bytes >= 0x80 (UTF-8) */
    CC_DIGIT,       /* 0-9 */
    CC_QUOTE,       /* ' string literal */
    CC_DQUOTE,      /* " quoted identifier */
    CC_MINUS,       /* - or a -- comment */
    CC_SLASH,       /* / or a comment */
    CC_DOT,         /* . or a number like .5 */
    CC_LT,          /* < <= <> */
    CC_GT,          /* > >= */
    CC_EQ,          /* = */
    CC_BANG,        /* != */
    CC_PIPE,        /* || */
    CC_PLUS,
    CC_STAR,
    CC_PERCENT,
    CC_LP,
    CC_RP,
    CC_COMMA,
    CC_SEMI,
    CC_LB, /* [ */
    CC_RB  /* ] */
};

#define S_ CC_SPACE
#define I_ CC_ID
#define D_ CC_DIGIT
#define X_ CC_ILLEGAL

static const unsigned char char_class[256] = {
    /* 0x00 */ CC_NUL, X_, X_, X_, X_, X_, X_, X_, X_, S_, S_, S_, S_, S_, X_, X_,
    /* 0x10 */ X_, X_, X_, X_, X_, X_, X_, X_, X_, X_, X_, X_, X_, X_, X_, X_,
    /* 0x20  ' ' !  "  #  $  %  &  '  (  )  *  +  ,  -  .  / */
    S_, CC_BANG, CC_DQUOTE, X_, X_, CC_PERCENT, X_, CC_QUOTE, CC_LP, CC_RP, CC_STAR, CC_PLUS,
    CC_COMMA, CC_MINUS, CC_DOT, CC_SLASH,
    /* 0x30  0-9 : ; < = > ? */
    D_, D_, D_, D_, D_, D_, D_, D_, D_, D_, X_, CC_SEMI, CC_LT, CC_EQ, CC_GT, X_,
    /* 0x40  @ A-O */
    X_, I_, I_, I_, I_, I_, I_, I_, I_, I_, I_, I_, I_, I_, I_, I_,
    /* 0x50  P-Z [ \ ] ^ _ */
    I_, I_, I_, I_, I_, I_, I_, I_, I_, I_, I_, CC_LB, X_, CC_RB, X_, I_,
    /* 0x60  ` a-o */
    X_, I_, I_, I_, I_, I_, I_, I_, I_, I_, I_, I_, I_, I_, I_, I_,
    /* 0x70  p-z { | } ~ DEL */
    I_, I_, I_, I_, I_, I_, I_, I_, I_, I_, I_, X_, CC_PIPE, X_, X_, X_,
    /* 0x80 - 0xff: UTF-8 bytes are identifier characters */
    I_, I_, I_, I_, I_, I_, I_, I_, I_, I_, I_, I_, I_, I_, I_, I_,
    I_, I_, I_, I_, I_, I_, I_, I_, I_, I_, I_, I_, I_, I_, I_, I_,
    I_, I_, I_, I_, I_, I_, I_, I_, I_, I_, I_, I_, I_, I_, I_, I_,
    I_, I_, I_, I_, I_, I_, I_, I_, I_, I_, I_, I_, I_, I_, I_, I_,
    I_, I_, I_, I_, I_, I_, I_, I_, I_, I_, I_, I_, I_, I_, I_, I_,
    I_, I_, I_, I_, I_, I_, I_, I_, I_, I_, I_, I_, I_, I_, I_, I_,
    I_, I_, I_, I_, I_, I_, I_, I_, I_, I_, I_, I_, I_, I_, I_, I_,
    I_, I_, I_, I_, I_, I_, I_, I_, I_, I_, I_, I_, I_, I_, I_, I_,
};

#undef S_
#undef I_
#undef D_
#undef X_

#define CLASS(c) (char_class[(unsigned char)(c)])
#define IS_DIGIT(c) (CLASS(c) == CC_DIGIT)
#define IS_IDCHAR(c) (CLASS(c) == CC_ID || CLASS(c) == CC_DIGIT)

/* A literal delimited by q ('...' or "..."), where qq is an escaped q. */
static int quoted(const char *z, char q, int *type, int tk)
{
    int i = 1;
    for (;;) {
        if (z[i] == 0) {
            *type = RSQL_TK_UNTERMINATED_;
            return i;
        }
        if (z[i] == q) {
            if (z[i + 1] == q) {
                i += 2;
                continue;
            }
            *type = tk;
            return i + 1;
        }
        i++;
    }
}

/* A number: digits [. digits] [e [+-] digits], or . digits [exponent]. */
static int number(const char *z, int *type)
{
    int i = 0;
    *type = RSQL_TK_INTEGER;
    while (IS_DIGIT(z[i])) {
        i++;
    }
    if (z[i] == '.') {
        i++;
        while (IS_DIGIT(z[i])) {
            i++;
        }
        *type = RSQL_TK_FLOAT;
    }
    if (z[i] == 'e' || z[i] == 'E') {
        int j = i + 1;
        if (z[j] == '+' || z[j] == '-') {
            j++;
        }
        if (IS_DIGIT(z[j])) {
            while (IS_DIGIT(z[j])) {
                j++;
            }
            i = j;
            *type = RSQL_TK_FLOAT;
        } else {
            *type = RSQL_TK_ILLEGAL_; /* 1e, 1e+ */
            i = j;
        }
    }
    /* 12abc, 1.5x: one illegal token up to the end of the word */
    if (IS_IDCHAR(z[i])) {
        *type = RSQL_TK_ILLEGAL_;
        while (IS_IDCHAR(z[i])) {
            i++;
        }
    }
    return i;
}

/*
** The length of the token starting at z and its type in *type: an RSQL_TK_*
** code of the parser, or RSQL_TK_SPACE_ (whitespace, comments),
** RSQL_TK_ILLEGAL_ (a character or word that starts no token),
** RSQL_TK_UNTERMINATED_ (a string, quoted identifier or block comment that
** reaches the end of the text).  Returns 0 only at the terminating NUL.
** Quoted identifiers are RSQL_TK_ID (the token still has its quotes).
*/
int rsql_sql_get_token(const char *z, int *type)
{
    int i;
    switch (CLASS(*z)) {
    case CC_NUL:
        *type = RSQL_TK_ILLEGAL_;
        return 0;
    case CC_SPACE:
        for (i = 1; CLASS(z[i]) == CC_SPACE; i++) {
        }
        *type = RSQL_TK_SPACE_;
        return i;
    case CC_MINUS:
        if (z[1] == '-') {
            for (i = 2; z[i] && z[i] != '\n'; i++) {
            }
            *type = RSQL_TK_SPACE_;
            return i;
        }
        *type = RSQL_TK_MINUS;
        return 1;
    case CC_SLASH:
        if (z[1] == '*') {
            for (i = 2; z[i] && !(z[i] == '*' && z[i + 1] == '/'); i++) {
            }
            if (!z[i]) {
                *type = RSQL_TK_UNTERMINATED_;
                return i;
            }
            *type = RSQL_TK_SPACE_;
            return i + 2;
        }
        *type = RSQL_TK_SLASH;
        return 1;
    case CC_LP:
        *type = RSQL_TK_LP;
        return 1;
    case CC_RP:
        *type = RSQL_TK_RP;
        return 1;
    case CC_COMMA:
        *type = RSQL_TK_COMMA;
        return 1;
    case CC_SEMI:
        *type = RSQL_TK_SEMI;
        return 1;
    case CC_LB:
        *type = RSQL_TK_LB;
        return 1;
    case CC_RB:
        *type = RSQL_TK_RB;
        return 1;
    case CC_PLUS:
        *type = RSQL_TK_PLUS;
        return 1;
    case CC_STAR:
        *type = RSQL_TK_STAR;
        return 1;
    case CC_PERCENT:
        *type = RSQL_TK_REM;
        return 1;
    case CC_EQ:
        *type = RSQL_TK_EQ;
        return 1;
    case CC_LT:
        if (z[1] == '=') {
            *type = RSQL_TK_LE;
            return 2;
        }
        if (z[1] == '>') {
            *type = RSQL_TK_NE;
            return 2;
        }
        *type = RSQL_TK_LT;
        return 1;
    case CC_GT:
        if (z[1] == '=') {
            *type = RSQL_TK_GE;
            return 2;
        }
        *type = RSQL_TK_GT;
        return 1;
    case CC_BANG:
        if (z[1] == '=') {
            *type = RSQL_TK_NE;
            return 2;
        }
        *type = RSQL_TK_ILLEGAL_;
        return 1;
    case CC_PIPE:
        if (z[1] == '|') {
            *type = RSQL_TK_CONCAT;
            return 2;
        }
        *type = RSQL_TK_ILLEGAL_;
        return 1;
    case CC_QUOTE:
        return quoted(z, '\'', type, RSQL_TK_STRING);
    case CC_DQUOTE:
        return quoted(z, '"', type, RSQL_TK_ID);
    case CC_DOT:
        if (IS_DIGIT(z[1])) {
            return number(z, type);
        }
        *type = RSQL_TK_DOT;
        return 1;
    case CC_DIGIT:
        return number(z, type);
    case CC_ID:
        for (i = 1; IS_IDCHAR(z[i]); i++) {
        }
        *type = rsql_sql__keyword_code(z, (size_t)i);
        return i;
    default:
        *type = RSQL_TK_ILLEGAL_;
        return 1;
    }
}
