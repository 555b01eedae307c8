#pragma once
// Every stream node: sources (generate, range, scan, read), per-element nodes (map,
// filter, unique, take, tee), merge, sort, reduce, join / left_join, zip / concat, and the
// sinks (count, for_each, materialize, branch). See node.hpp for the node concept.
#include "flow/stream/combine.hpp"
#include "flow/stream/join.hpp"
#include "flow/stream/merge.hpp"
#include "flow/stream/node.hpp"
#include "flow/stream/reduce.hpp"
#include "flow/stream/sequence.hpp"
#include "flow/stream/sinks.hpp"
#include "flow/stream/sort.hpp"
#include "flow/stream/sources.hpp"
#include "flow/stream/transform.hpp"
