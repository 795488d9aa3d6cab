//! Cost-optimal planning for PDDL tasks.
//!
//! - [`parse_domain`] and [`parse_problem`] ([`parser`], over the s-expression reader
//!   [`sexpr`]) read a domain and a problem into the resolved lifted task ([`ast`]),
//!   or a [`Diagnostic`] with file, line, column and caret;
//! - [`ground()`] ([`mod@ground`]) instantiates the actions reachable in the delete
//!   relaxation, static predicates folded away, into a [`Task`] ([`task`]) whose states
//!   are bitsets of facts in `u32` words;
//! - [`search()`] ([`mod@search`]) finds an optimal plan: A* with LM-cut or h_max
//!   ([`heuristic`]) or pattern databases ([`pdb`], over the at-most-one invariants of
//!   [`invariant`]), or blind (breadth-first when every action costs 1, cost-layered
//!   uniform-cost search otherwise), with a bound on stored states;
//! - [`model`]: the grounded task as a [`warpcheck_model`] model (CPU successors and
//!   CUDA C), for the exploration engines on the CPU and the GPU;
//! - [`validate()`] ([`mod@validate`]) replays a plan on the lifted semantics of the parsed
//!   domain and problem, independently of the grounder, and recomputes its cost.
//!
//! ```
//! let domain = "(define (domain d) (:predicates (at ?x) (road ?x ?y))
//!   (:action go :parameters (?x ?y) :precondition (and (at ?x) (road ?x ?y))
//!    :effect (and (not (at ?x)) (at ?y))))";
//! let problem = "(define (problem p) (:domain d) (:objects a b c)
//!   (:init (at a) (road a b) (road b c)) (:goal (at c)))";
//! let domain = warpcheck_pddl::parse_domain(domain).unwrap();
//! let problem = warpcheck_pddl::parse_problem(problem, &domain).unwrap();
//! let task = warpcheck_pddl::ground(&domain, &problem).unwrap();
//! let outcome = warpcheck_pddl::search(&task, &warpcheck_pddl::SearchOptions::default()).unwrap();
//! let plan = outcome.plan.expect("solvable");
//! let names: Vec<String> = plan.iter().map(|&a| task.actions[a].name.clone()).collect();
//! assert_eq!(names, ["(go a b)", "(go b c)"]);
//! assert_eq!(warpcheck_pddl::validate(&domain, &problem, &names), Ok(2));
//! ```

pub mod ast;
pub mod bounds;
pub mod diagnostic;
pub mod ground;
pub mod heuristic;
pub mod invariant;
pub mod model;
pub mod numeric;
pub mod parser;
pub mod pdb;
pub mod search;
pub mod sexpr;
pub mod task;
pub mod validate;

pub use diagnostic::{Diagnostic, FileKind, Span};
pub use ground::ground;
pub use heuristic::Heuristic;
pub use parser::{parse_domain, parse_problem};
pub use search::{search, SearchError, SearchOptions, SearchOutcome};
pub use task::{State, Task};
pub use validate::{validate, validate_net_benefit, ValidationError};
