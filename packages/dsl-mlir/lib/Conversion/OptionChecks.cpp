//===- OptionChecks.cpp - validating pass and pipeline options ------------===//

#include "dsl/Conversion/OptionChecks.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using llvm::StringRef;

namespace {

/// One `key[=value]` of an option string, as MLIR's parser splits it
/// (space-separated; quotes and braces group).
struct KeyValue {
  StringRef key, value;
  bool hasValue = false;
};

/// The end of the value starting at `i` (a space outside quotes and braces).
size_t valueEnd(StringRef s, size_t i) {
  int depth = 0;
  for (; i < s.size(); ++i) {
    char c = s[i];
    if (c == '"' || c == '\'') {
      size_t close = s.find(c, i + 1);
      if (close == StringRef::npos)
        return s.size();
      i = close;
    } else if (c == '{') {
      ++depth;
    } else if (c == '}') {
      depth = std::max(0, depth - 1);
    } else if (c == ' ' && depth == 0) {
      return i;
    }
  }
  return s.size();
}

SmallVector<KeyValue> splitOptions(StringRef s) {
  SmallVector<KeyValue> out;
  size_t i = 0;
  while (i < s.size()) {
    if (s[i] == ' ') {
      ++i;
      continue;
    }
    size_t keyEnd = s.find_first_of("= ", i);
    if (keyEnd == StringRef::npos)
      keyEnd = s.size();
    KeyValue kv;
    kv.key = s.slice(i, keyEnd);
    i = keyEnd;
    if (i < s.size() && s[i] == '=') {
      size_t end = valueEnd(s, i + 1);
      kv.value = s.slice(i + 1, end).trim();
      kv.hasValue = true;
      i = end;
    }
    out.push_back(kv);
  }
  return out;
}

/// Strips one pair of quotes or braces, as MLIR does.
StringRef unwrap(StringRef v) {
  if (v.size() >= 2 && ((v.front() == '"' && v.back() == '"') ||
                        (v.front() == '\'' && v.back() == '\'') ||
                        (v.front() == '{' && v.back() == '}')))
    return v.drop_front().drop_back().trim();
  return v;
}

bool isBool(StringRef v) {
  return llvm::is_contained({"", "true", "True", "TRUE", "1", "false",
                             "False", "FALSE", "0"},
                            v);
}

bool isInt(StringRef v) {
  int64_t x;
  return !v.trim().getAsInteger(0, x);
}

bool isIntList(StringRef v) {
  if (v.empty())
    return true;
  SmallVector<StringRef> parts;
  v.split(parts, ',');
  return llvm::all_of(parts, isInt);
}

StringRef kindText(dsl::OptionKind kind) {
  switch (kind) {
  case dsl::OptionKind::Bool:
    return "true or false";
  case dsl::OptionKind::Int:
    return "an integer";
  case dsl::OptionKind::IntList:
    return "a comma-separated list of integers";
  case dsl::OptionKind::String:
    return "a string";
  }
  llvm_unreachable("unknown option kind");
}

std::string normalized(StringRef name) {
  std::string s = name.lower();
  std::replace(s.begin(), s.end(), '_', '-');
  return s;
}

/// The option `key` was probably meant to be, or "".
StringRef closest(StringRef key, ArrayRef<dsl::OptionSpec> specs) {
  StringRef best;
  unsigned bestDistance = 4;
  for (const dsl::OptionSpec &spec : specs) {
    if (normalized(key) == spec.name)
      return spec.name;
    unsigned d = StringRef(normalized(key)).edit_distance(spec.name);
    if (d < bestDistance) {
      bestDistance = d;
      best = spec.name;
    }
  }
  return best;
}

std::string unknownOption(StringRef owner, StringRef key,
                          ArrayRef<dsl::OptionSpec> specs) {
  std::string msg = (owner + ": no option " + key).str();
  StringRef guess = closest(key, specs);
  if (!guess.empty())
    msg += ("; did you mean " + guess + "?").str();
  msg += " (options:";
  for (auto [i, spec] : llvm::enumerate(specs))
    msg += (i ? ", " : " ") + spec.name.str();
  return msg + ")";
}

} // namespace

std::string dsl::checkOptionText(StringRef owner, StringRef options,
                                 ArrayRef<OptionSpec> specs) {
  for (const KeyValue &kv : splitOptions(options)) {
    const OptionSpec *spec = llvm::find_if(
        specs, [&](const OptionSpec &s) { return s.name == kv.key; });
    if (spec == specs.end())
      return unknownOption(owner, kv.key, specs);
    StringRef v = unwrap(kv.value);
    bool ok = true;
    switch (spec->kind) {
    case dsl::OptionKind::Bool:
      ok = isBool(v);
      break;
    case dsl::OptionKind::Int:
      ok = kv.hasValue && isInt(v);
      break;
    case dsl::OptionKind::IntList:
      ok = kv.hasValue && isIntList(v);
      break;
    case dsl::OptionKind::String:
      ok = kv.hasValue;
      break;
    }
    if (!ok) {
      std::string got =
          kv.hasValue ? ("'" + kv.value + "'").str() : std::string("no value");
      return optionRangeError(owner, kv.key, kindText(spec->kind), got);
    }
  }
  return "";
}

LogicalResult dsl::checkPassOptionText(
    StringRef owner, StringRef options, ArrayRef<OptionSpec> specs,
    function_ref<LogicalResult(const Twine &)> errorHandler) {
  std::string error = checkOptionText(owner, options, specs);
  return error.empty() ? success() : errorHandler(error);
}

std::string dsl::optionRangeError(StringRef owner, StringRef name,
                                  const Twine &what, const Twine &value) {
  return (owner + ": " + name + " must be " + what + ", got " + value).str();
}

std::string dsl::checkIntRange(StringRef owner, StringRef name, int64_t value,
                               int64_t low, int64_t high) {
  if (value >= low && value <= high)
    return "";
  return optionRangeError(owner, name,
                          "in " + Twine(low) + ".." + Twine(high),
                          Twine(value));
}

std::string dsl::checkVectorSize(StringRef owner, int64_t size) {
  if (size < 1 || !llvm::isPowerOf2_64(size))
    return optionRangeError(owner, "vector-size", "a power of two",
                            Twine(size));
  if (size > kMaxVectorSize)
    return optionRangeError(owner, "vector-size",
                            "at most " + Twine(kMaxVectorSize), Twine(size));
  return "";
}

std::string dsl::checkTargetVectorBits(StringRef owner, int64_t bits) {
  if (bits != 0 && bits != 128 && bits != 256 && bits != 512)
    return optionRangeError(owner, "target-vector-bits",
                            "0 (this host), 128, 256 or 512", Twine(bits));
  return "";
}

std::string dsl::checkMatmulTileSizes(StringRef owner,
                                      ArrayRef<int64_t> sizes) {
  if (sizes.empty())
    return "";
  std::string got;
  for (auto [i, s] : llvm::enumerate(sizes))
    got += (i ? "," : "") + std::to_string(s);
  if (sizes.size() != 3 ||
      llvm::any_of(sizes, [](int64_t s) { return s < 1; }) ||
      !llvm::isPowerOf2_64(sizes[1]))
    return optionRangeError(
        owner, "matmul-tile-sizes",
        "three positive sizes M,N,K with N a power of two", got);
  if (sizes[0] > kMaxTileMK || sizes[1] > kMaxTileN || sizes[2] > kMaxTileMK ||
      sizes[0] * sizes[1] * sizes[2] > kMaxTileElements)
    return optionRangeError(
        owner, "matmul-tile-sizes",
        "at most " + Twine(kMaxTileMK) + "," + Twine(kMaxTileN) + "," +
            Twine(kMaxTileMK) + " with M*N*K at most " +
            Twine(kMaxTileElements) +
            " (a larger register tile unrolls into code that takes LLVM "
            "minutes to compile)",
        got);
  return "";
}
