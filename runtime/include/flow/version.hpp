#pragma once

namespace flow {
/// Version of the Flow runtime library this program was linked against.
const char* runtime_version();
} // namespace flow
