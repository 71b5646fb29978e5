/**
 * Scripted models for tests: a `Model` that plays its turns in order.
 *
 * @module
 */

// --- testing (agent-loop) ---
// --- end testing ---
