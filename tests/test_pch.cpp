// The source that carries the tests' precompiled Catch2 header (tests/CMakeLists.txt, tbkit_test_pch).
