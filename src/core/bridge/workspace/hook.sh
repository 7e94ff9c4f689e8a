#!/bin/sh
# Written by opencode-cursor-native. In this folder OpenCode runs the tools: only calls to its
# MCP server (and Cursor's lookup of MCP tools, reads of Cursor's own bookkeeping files and of the
# run's attachments) may pass; anything else, or anything this script cannot read, is denied.
#
# The event (JSON on stdin) is read by awk the way JSON.parse reads it: escapes decoded, only the
# event's own top-level fields and its tool_input's own fields judged, a key given twice or input
# that is not one JSON object denied. A Read's path is judged as the tool opens it: `.`, `..` and
# repeated slashes resolved. A value with a control character, or one longer than any path, is
# not read with certainty and is denied; a string the verdict does not use is skipped, not
# decoded (Cursor's own JSON.stringify wrote it). awk, like /bin/sh, is on every system this hook
# can run on; a JSON reader of its own reads what Cursor sends exactly, with nothing else
# installed, in time that grows with the event's length alone.
@SETTINGS@
export OCN_DATA OCN_ATTACHMENTS OCN_SERVER OCN_URL OCN_FOLDERS
LC_ALL=C
export LC_ALL
exec awk '
function verdict(answer) { print answer; exit }
function escaped(s) { return match(s, /\\+$/) ? RLENGTH % 2 : 0 }
function hexval(h,   v, j, d) {
  if (length(h) != 4) return -1
  for (j = 1; j <= 4; j++) {
    d = index("0123456789abcdef", tolower(substr(h, j, 1)))
    if (!d) return -1
    v = v * 16 + d - 1
  }
  return v
}
# A JSON string body decoded; a character that is not printable ASCII becomes UNSURE.
function unescape(s,   out, at, c, code) {
  while ((at = index(s, "\\")) > 0) {
    out = out substr(s, 1, at - 1)
    c = substr(s, at + 1, 1)
    if (c == "u") {
      code = hexval(substr(s, at + 2, 4))
      if (code < 0) verdict(DENY)
      out = out (code >= 32 && code < 127 ? sprintf("%c", code) : UNSURE)
      s = substr(s, at + 6)
      continue
    }
    if (c != "" && index("\"\\/", c)) out = out c
    else if (c != "" && index("bfnrt", c)) out = out UNSURE
    else verdict(DENY)
    s = substr(s, at + 2)
  }
  return out s
}
# Which field the value read next is: one of the event, or one of its tool_input (else none).
function field() {
  if (depth == 1) return "top " key[1]
  if (depth == 2 && type[2] == "{" && key[1] == "tool_input") return "input " key[2]
  return ""
}
function wanted(   f) {
  if (state == "object" || state == "key") return depth == 1 || (depth == 2 && key[1] == "tool_input")
  f = field()
  return (f in WANTED)
}
function found(kind, raw, long,   f) {
  if (depth == 0) { if (kind != "{") verdict(DENY); return }
  f = field()
  if (f == "") return
  if (f in seen) verdict(DENY)
  seen[f] = 1
  if (f in WANTED) value[f] = (kind == "s" && !long) ? unescape(raw) : UNSURE
}
function shut(kind) {
  if (type[depth] != (kind == "}" ? "{" : "[")) verdict(DENY)
  depth--
  state = depth ? "next" : "end"
}
function token(kind, raw, long) {
  if (state == "colon") { if (kind != ":") verdict(DENY); state = "value"; return }
  if (state == "next") {
    if (kind == ",") { state = (type[depth] == "{") ? "key" : "value"; return }
    if (kind != "}" && kind != "]") verdict(DENY)
    shut(kind)
    return
  }
  if (state == "object" || state == "key") {
    if (kind == "}" && state == "object") { shut(kind); return }
    if (kind != "s") verdict(DENY)
    key[depth] = long ? UNSURE : (wanted() ? unescape(raw) : "")
    state = "colon"
    return
  }
  if (state == "array" && kind == "]") { shut(kind); return }
  if (state != "value" && state != "array") verdict(DENY)
  if (kind == "l" && raw !~ LITERAL) verdict(DENY)
  if (kind != "s" && kind != "l" && kind != "{" && kind != "[") verdict(DENY)
  found(kind, raw, long)
  if (kind == "{" || kind == "[") {
    type[++depth] = kind
    key[depth] = ""
    state = (kind == "{") ? "object" : "array"
  } else state = depth ? "next" : "end"
}
# Text between strings: punctuation, white space (lines are joined by UNSURE) and literals, cut
# at commas first: some awks take time as long as the whole string for each character.
function outside(s,   part, n, j) {
  n = split(s, part, ",")
  for (j = 1; j <= n; j++) {
    if (j > 1) token(",")
    characters(part[j])
  }
}
function characters(s,   j, n, c, literal) {
  n = length(s)
  for (j = 1; j <= n; j++) {
    c = substr(s, j, 1)
    if (index("{}[]: \t\r" UNSURE, c)) {
      if (literal != "") token("l", literal)
      literal = ""
      if (index("{}[]:", c)) token(c)
    } else literal = literal c
  }
  if (literal != "") token("l", literal)
}
function normal(p,   part, n, j, kept, out) {
  n = split(p, part, "/")
  for (j = 1; j <= n; j++) {
    if (part[j] == "" || part[j] == ".") continue
    if (part[j] == "..") { if (kept) kept--; continue }
    stack[++kept] = part[j]
  }
  for (j = 1; j <= kept; j++) out = out "/" stack[j]
  return out == "" ? "/" : out
}
function readable(p,   folder, rest, part) {
  if (p ~ CONTROL || substr(p, 1, 1) != "/") return 0
  p = normal(p)
  if (ENVIRON["OCN_ATTACHMENTS"] != "") {
    folder = normal(ENVIRON["OCN_ATTACHMENTS"]) "/"
    rest = substr(p, length(folder) + 1)
    if (substr(p, 1, length(folder)) == folder && rest != "" && !index(rest, "/")) return 1
  }
  folder = normal(ENVIRON["OCN_DATA"]) "/projects/"
  if (substr(p, 1, length(folder)) != folder) return 0
  return split(substr(p, length(folder) + 1), part, "/") >= 3 &&
    index(ENVIRON["OCN_FOLDERS"], "/" part[2] "/") > 0
}
function judge(   name, url) {
  if ("top mcp_server_name" in seen) {
    url = value["top mcp_server_url"]
    if (value["top mcp_server_name"] == ENVIRON["OCN_SERVER"] && (url == "" || url == ENVIRON["OCN_URL"]))
      verdict(ALLOW)
    verdict(DENY)
  }
  name = value["top tool_name"]
  if (name ~ /^MCP:/ || name ~ /^[Gg]et[Mm]cp[Tt]ools/) verdict(ALLOW)
  if (name == "Read" && readable(value["input path"])) verdict(ALLOW)
  verdict(DENY)
}
BEGIN {
  ALLOW = "{\"permission\":\"allow\"}"
  DENY = "{\"permission\":\"deny\",\"user_message\":\"opencode-cursor-native: Cursor tried one of its own tools; OpenCode owns the tools here.\",\"agent_message\":\"This tool is not available. Use the tools of the opencode MCP server instead.\"}"
  UNSURE = sprintf("%c", 1)
  CONTROL = sprintf("[%c-%c]", 1, 31)
  LITERAL = "^(true|false|null|-?(0|[1-9][0-9]*)([.][0-9]+)?([eE][+-]?[0-9]+)?)$"
  LONGEST = 8192
  split("top tool_name,top mcp_server_name,top mcp_server_url,input path", names, ",")
  for (j in names) WANTED[names[j]] = 1
  state = "value"
}
# Lines joined by a control character, not a newline: some awks split at a newline whatever the
# separator, and a string that went on over a line is not read with certainty.
{ text = text (NR > 1 ? UNSURE : "") $0 }
END {
  count = split(text, piece, "\"")
  for (i = 1; i <= count; i++) {
    if (!inside) {
      outside(piece[i])
      if (i < count) { inside = 1; raw = ""; want = wanted() }
      continue
    }
    if (i == count) verdict(DENY)
    if (want && length(raw) <= LONGEST) raw = raw piece[i]
    if (escaped(piece[i])) { if (want && length(raw) <= LONGEST) raw = raw "\""; continue }
    inside = 0
    token("s", raw, length(raw) > LONGEST)
  }
  if (state != "end") verdict(DENY)
  judge()
}
'
