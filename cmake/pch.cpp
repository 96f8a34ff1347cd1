// The translation unit that builds the shared precompiled header
// (cmake/PrecompiledHeaders.cmake); it defines nothing.
