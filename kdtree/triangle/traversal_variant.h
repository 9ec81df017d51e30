// The ways a ray can walk the triangle kd-tree (kdtree/triangle/traversal.h). All three visit the
// same leaves in the same order and give the same hits; they differ in the memory a ray keeps and
// in the nodes they read again (Papay 2025, chapter 6 and section 11.3.1, measures them on a GPU).
#pragma once

#include <cstdint>
#include <type_traits>

namespace caustica {

enum class TraversalVariant : uint8_t {
    Stack,       // a stack of one entry per tree level (Papay 2025, Algorithm 1)
    PushDown,    // no stack: after each leaf, restart from the push-down root (Algorithm 3)
    ShortStack,  // a stack of kShortStackEntries, restarting from the push-down root when it runs dry
                 // (Algorithm 4, Horn et al. 2007's short stack with push-down)
};

// The traversal of the renderer's passes, of FindClosestHit and IsOccluded without a variant, and
// of `caustica bench kdtree` without --traversal.
constexpr TraversalVariant kDefaultTraversal = TraversalVariant::Stack;

// The short stack's entries (Papay 2025 measured 4 faster than 8 on every scene it traced).
constexpr int kShortStackEntries = 4;

constexpr TraversalVariant kTraversalVariants[] = {TraversalVariant::Stack, TraversalVariant::PushDown,
                                                   TraversalVariant::ShortStack};

// The name --traversal takes and benchmarks print.
inline const char* TraversalVariantName(TraversalVariant v) {
    switch (v) {
        case TraversalVariant::Stack: return "stack";
        case TraversalVariant::PushDown: return "push-down";
        case TraversalVariant::ShortStack: return "short-stack";
    }
    return "?";
}

// Turns a run-time variant into a compile-time one: calls f with
// std::integral_constant<TraversalVariant, variant> (host code: launches, benchmarks).
template <class F>
decltype(auto) WithTraversalVariant(TraversalVariant variant, F&& f) {
    using V = TraversalVariant;
    switch (variant) {
        case V::PushDown: return f(std::integral_constant<V, V::PushDown>{});
        case V::ShortStack: return f(std::integral_constant<V, V::ShortStack>{});
        case V::Stack: break;
    }
    return f(std::integral_constant<V, V::Stack>{});
}

}  // namespace caustica
