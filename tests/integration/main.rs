//! Integration tests, one binary: the rules against a naive implementation,
//! the index exhaustively, the solver against a naive solver and published
//! facts, and the command line.

mod answer;
mod cli;
mod first_use;
mod house;
mod index;
mod move_count;
mod naive;
mod pack;
mod probe;
mod rules;
mod solver;
mod verify;
