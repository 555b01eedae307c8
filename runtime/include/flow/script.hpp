#pragma once
// What code generated from a .flow script needs beyond the stream nodes, containers and
// the sorter, one header per job.
#include "flow/script/arithmetic.hpp"
#include "flow/script/csv_files.hpp"
#include "flow/script/error.hpp"
#include "flow/script/text_files.hpp"
#include "flow/script/total_order.hpp"
#include "flow/script/values.hpp"
