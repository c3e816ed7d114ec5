// Result<T>: a value or an Error carrying a code and a message that names the place.
#pragma once

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace tbkit {

enum class ErrorCode {
  kInvalidArgument,  // malformed user input: FEN, SAN, option values
  kIllegal,          // well-formed but against the rules: illegal move, impossible position
  kIo,               // cannot open, read or write a file
  kCorrupt,          // a file fails validation: bad magic, checksum, truncation
  kVersion,          // a file of an unsupported format version
  kUnavailable,      // no table or book covers the request
};

struct Error {
  ErrorCode code = ErrorCode::kInvalidArgument;
  std::string message;
};

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : data_(std::move(value)) {}          // NOLINT: implicit by design
  Result(Error error) : data_(std::move(error)) {}      // NOLINT: implicit by design

  [[nodiscard]] bool ok() const { return data_.index() == 0; }
  explicit operator bool() const { return ok(); }

  [[nodiscard]] T& value() & { assert(ok()); return std::get<0>(data_); }
  [[nodiscard]] const T& value() const& { assert(ok()); return std::get<0>(data_); }
  [[nodiscard]] T&& value() && { assert(ok()); return std::get<0>(std::move(data_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  [[nodiscard]] const Error& error() const { assert(!ok()); return std::get<1>(data_); }

 private:
  std::variant<T, Error> data_;
};

// Result<void> analogue: success or an Error.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Error error) : error_(std::move(error)), ok_(false) {}  // NOLINT: implicit by design
  [[nodiscard]] bool ok() const { return ok_; }
  explicit operator bool() const { return ok_; }
  [[nodiscard]] const Error& error() const { assert(!ok_); return error_; }

 private:
  Error error_;
  bool ok_ = true;
};

inline Error make_error(ErrorCode code, std::string message) { return Error{code, std::move(message)}; }

}  // namespace tbkit
