//! Recursive descent over the s-expression tree ([`crate::sexpr`]) into the resolved
//! [`Domain`] and [`Problem`] ([`crate::ast`]): requirements, types, constants,
//! predicates, functions, actions, objects, init, goal, metric. Every name is checked
//! here (unknown predicates, types, objects and variables; wrong arities), and features
//! outside what the planner supports are refused with "... is not supported yet". The
//! tree's depth is bounded by the reader, so the recursion is too.

use rustc_hash::FxHashMap;

use crate::ast::*;
use crate::diagnostic::{Diagnostic, FileKind, Span};
use crate::numeric::{Assign, Cmp, Ratio};
use crate::sexpr::{self, Sexp};

mod numeric;

/// Requirements that the planner handles.
const SUPPORTED: &[&str] = &[
    ":strips",
    ":typing",
    ":negative-preconditions",
    ":disjunctive-preconditions",
    ":equality",
    ":existential-preconditions",
    ":universal-preconditions",
    ":quantified-preconditions",
    ":conditional-effects",
    ":adl",
    ":action-costs",
    ":numeric-fluents",
    ":fluents",
    ":preferences",
    ":goal-utilities",
];

/// Requirements of PDDL that exist but are not handled (yet).
const UNSUPPORTED: &[&str] = &[
    ":object-fluents",
    ":durative-actions",
    ":duration-inequalities",
    ":continuous-effects",
    ":derived-predicates",
    ":timed-initial-literals",
    ":constraints",
];

type Result<T> = std::result::Result<T, Diagnostic>;

/// A preference's weight in a net-benefit metric, and where its name is written.
type Weight = (String, u64, Span);

/// Parses a domain file.
pub fn parse_domain(source: &str) -> Result<Domain> {
    let tree = sexpr::read(source, FileKind::Domain)?;
    DomainParser { p: P { file: FileKind::Domain } }.domain(&tree)
}

/// Parses a problem file against its domain.
pub fn parse_problem(source: &str, domain: &Domain) -> Result<Problem> {
    let tree = sexpr::read(source, FileKind::Problem)?;
    ProblemParser { p: P { file: FileKind::Problem }, domain }.problem(&tree)
}

/// What both parsers share: the file, errors, and the common pieces of syntax.
struct P {
    file: FileKind,
}

/// Names in scope: types, predicates, functions, objects (constants, or constants and
/// objects).
struct Names<'a> {
    types: &'a FxHashMap<String, usize>,
    predicates: &'a FxHashMap<String, usize>,
    predicate_arity: &'a [usize],
    functions: &'a FxHashMap<String, usize>,
    function_arity: &'a [usize],
    objects: &'a FxHashMap<String, usize>,
}

/// Variables in scope, innermost last, and the next free slot.
#[derive(Default)]
struct Scope {
    vars: Vec<(String, usize)>,
    slots: usize,
}

impl P {
    fn err(&self, message: impl Into<String>, span: Span) -> Diagnostic {
        Diagnostic::new(message, self.file, span)
    }

    /// A net-benefit metric `(- C (+ TERM ...))` (or `(- C TERM)`), each TERM
    /// `(total-cost)`, `(is-violated NAME)` or `(* (is-violated NAME) W)` (either
    /// order): the constant, the preferences' weights, and whether the cost counts.
    fn net_benefit(&self, node: &Sexp) -> Result<(i64, Vec<Weight>, bool)> {
        let shape = || self.err("expected `(- C (+ (total-cost) (* (is-violated NAME) W) ...))`", node.span());
        let items = node.list().ok_or_else(shape)?;
        let (3, Some("-")) = (items.len(), node.head()) else { return Err(shape()) };
        let constant = items[1]
            .atom()
            .and_then(|a| a.parse::<i64>().ok())
            .ok_or_else(|| self.err("expected an integer", items[1].span()))?;
        let terms: Vec<&Sexp> = match items[2].head() {
            Some("+") => items[2].list().unwrap_or(&[])[1..].iter().collect(),
            _ => vec![&items[2]],
        };
        let (mut weights, mut with_cost) = (Vec::new(), false);
        let violated = |e: &Sexp| -> Option<(String, Span)> {
            let l = e.list()?;
            (e.head() == Some("is-violated") && l.len() == 2).then(|| Some((l[1].atom()?.to_string(), l[1].span())))?
        };
        for t in terms {
            if t.head() == Some("total-cost") && t.list().is_some_and(|l| l.len() == 1) {
                with_cost = true;
            } else if let Some((name, span)) = violated(t) {
                weights.push((name, 1, span));
            } else if let (Some("*"), Some([_, a, b])) = (t.head(), t.list()) {
                let (v, w) = if violated(a).is_some() { (a, b) } else { (b, a) };
                let (name, span) = violated(v).ok_or_else(|| self.err("expected `(is-violated NAME)`", v.span()))?;
                let weight = w
                    .atom()
                    .and_then(|x| x.parse::<u64>().ok())
                    .ok_or_else(|| self.err("expected a non-negative integer weight", w.span()))?;
                weights.push((name, weight, span));
            } else {
                return Err(self
                    .err("expected `(total-cost)` or `(* (is-violated NAME) W)`", t.span())
                    .label("not supported yet"));
            }
        }
        Ok((constant, weights, with_cost))
    }

    fn list<'t>(&self, node: &'t Sexp, what: &str) -> Result<&'t [Sexp]> {
        node.list().ok_or_else(|| self.err(format!("expected {what}"), node.span()).label("expected a list here"))
    }

    fn symbol<'t>(&self, node: &'t Sexp, what: &str) -> Result<&'t str> {
        match node {
            Sexp::Atom(s, _) if !s.starts_with('?') => Ok(s),
            _ => Err(self.err(format!("expected {what}"), node.span()).label("expected a name here")),
        }
    }

    /// `(define (KIND name) ...)`: the name and the sections.
    fn define<'t>(&self, tree: &'t Sexp, kind: &str) -> Result<(&'t str, &'t [Sexp])> {
        let items = self.list(tree, "`(define ...)`")?;
        if tree.head() != Some("define") {
            return Err(self.err("expected `(define ...)`", tree.span()).label("not a definition"));
        }
        let header = items.get(1).ok_or_else(|| self.err(format!("expected `({kind} NAME)`"), tree.span()))?;
        let h = self.list(header, &format!("`({kind} NAME)`"))?;
        if header.head() != Some(kind) || h.len() != 2 {
            return Err(self.err(format!("expected `({kind} NAME)`"), header.span()));
        }
        Ok((self.symbol(&h[1], "a name")?, &items[2..]))
    }

    fn requirements(&self, items: &[Sexp]) -> Result<()> {
        for r in items {
            let name = r.atom().unwrap_or("");
            if SUPPORTED.contains(&name) {
                continue;
            }
            let message = if UNSUPPORTED.contains(&name) {
                format!("requirement `{name}` is not supported yet")
            } else {
                format!("unknown requirement `{}`", name)
            };
            return Err(self.err(message, r.span()).label("this requirement"));
        }
        Ok(())
    }

    /// A typed list `a b - t c - (either t u) d`: each name with its type set
    /// (`object` when untyped). `resolve` maps a type name to its index.
    fn typed_list<'t>(
        &self,
        items: &'t [Sexp],
        resolve: &mut dyn FnMut(&str, Span) -> Result<usize>,
    ) -> Result<Vec<(&'t Sexp, TypeSet)>> {
        let mut out = Vec::new();
        let mut pending: Vec<&Sexp> = Vec::new();
        let mut i = 0;
        while i < items.len() {
            if items[i].atom() == Some("-") {
                let t = items.get(i + 1).ok_or_else(|| self.err("expected a type after `-`", items[i].span()))?;
                let types = self.type_set(t, resolve)?;
                if pending.is_empty() {
                    return Err(self.err("a type without names before it", items[i].span()));
                }
                out.extend(pending.drain(..).map(|n| (n, types.clone())));
                i += 2;
            } else {
                pending.push(&items[i]);
                i += 1;
            }
        }
        out.extend(pending.into_iter().map(|n| (n, vec![OBJECT])));
        Ok(out)
    }

    fn type_set(&self, t: &Sexp, resolve: &mut dyn FnMut(&str, Span) -> Result<usize>) -> Result<TypeSet> {
        match t {
            Sexp::Atom(name, span) => Ok(vec![resolve(name, *span)?]),
            Sexp::List(items, span) => {
                if t.head() != Some("either") || items.len() < 2 {
                    return Err(self.err("expected a type or `(either ...)`", *span));
                }
                items[1..].iter().map(|i| resolve(self.symbol(i, "a type")?, i.span())).collect()
            }
        }
    }

    /// Declares the typed objects (or constants: `what`) of `body`, each name once.
    fn declare_objects(
        &self,
        body: &[Sexp],
        types: &FxHashMap<String, usize>,
        index: &mut FxHashMap<String, usize>,
        objects: &mut Vec<Object>,
        what: &str,
    ) -> Result<()> {
        let an = if what.starts_with(['a', 'e', 'i', 'o', 'u']) { "an" } else { "a" };
        for (o, object_types) in self.typed_list(body, &mut |n, s| self.resolve_type(types, n, s))? {
            let name = self.symbol(o, &format!("{an} {what} name"))?;
            if index.insert(name.to_string(), objects.len()).is_some() {
                return Err(self.err(format!("{what} `{name}` declared twice"), o.span()));
            }
            objects.push(Object { name: name.to_string(), types: object_types });
        }
        Ok(())
    }

    fn resolve_type(&self, types: &FxHashMap<String, usize>, name: &str, span: Span) -> Result<usize> {
        types
            .get(name)
            .copied()
            .ok_or_else(|| self.err(format!("undefined type `{name}`"), span).label("not declared in `:types`"))
    }

    /// A parameter or quantifier variable list, bound in `scope`.
    fn variables(&self, node: &Sexp, names: &Names, scope: &mut Scope) -> Result<Vec<Variable>> {
        let items = self.list(node, "a variable list `(?x - type ...)`")?;
        let typed = self.typed_list(items, &mut |n, s| self.resolve_type(names.types, n, s))?;
        let mut out = Vec::new();
        for (v, types) in typed {
            let name = match v {
                Sexp::Atom(n, _) if n.starts_with('?') && n.len() > 1 => n.clone(),
                _ => return Err(self.err("expected a variable `?name`", v.span())),
            };
            let slot = scope.slots;
            scope.slots += 1;
            out.push(Variable { name, slot, types });
        }
        for v in &out {
            scope.vars.push((v.name.clone(), v.slot));
        }
        Ok(out)
    }

    fn term(&self, node: &Sexp, names: &Names, scope: &Scope) -> Result<Term> {
        match node {
            Sexp::Atom(n, span) if n.starts_with('?') => {
                scope.vars.iter().rev().find(|(v, _)| v == n).map(|(_, slot)| Term::Var(*slot)).ok_or_else(|| {
                    self.err(format!("unknown variable `{n}`"), *span).label("not a parameter or quantified variable")
                })
            }
            Sexp::Atom(n, span) => names
                .objects
                .get(n.as_str())
                .map(|o| Term::Object(*o))
                .ok_or_else(|| self.err(format!("unknown object or constant `{n}`"), *span).label("not declared")),
            Sexp::List(_, span) => Err(self
                .err("numeric expressions are not supported yet here", *span)
                .label("expected an object or variable")),
        }
    }

    fn atom(&self, node: &Sexp, names: &Names, scope: &Scope) -> Result<Atom> {
        let items = self.list(node, "an atom `(predicate ...)`")?;
        let Some(first) = items.first() else {
            return Err(self.err("expected an atom `(predicate ...)`", node.span()));
        };
        let name = self.symbol(first, "a predicate name")?;
        let Some(&predicate) = names.predicates.get(name) else {
            return Err(self
                .err(format!("unknown predicate `{name}`"), first.span())
                .label("not declared in `:predicates`"));
        };
        let arity = names.predicate_arity[predicate];
        if items.len() - 1 != arity {
            return Err(self
                .err(
                    format!("wrong number of arguments: `{name}` takes {arity}, given {}", items.len() - 1),
                    node.span(),
                )
                .label(format!("expected {arity} argument(s)")));
        }
        let args = items[1..].iter().map(|t| self.term(t, names, scope)).collect::<Result<_>>()?;
        Ok(Atom { predicate, args })
    }

    fn formula(&self, node: &Sexp, names: &Names, scope: &mut Scope) -> Result<Formula> {
        let items = self.list(node, "a condition")?;
        let Some(head) = node.head() else {
            return Err(self.err("expected a condition", node.span()));
        };
        let args = &items[1..];
        let count = |n: usize| -> Result<()> {
            if args.len() == n {
                Ok(())
            } else {
                Err(self.err(format!("`{head}` takes {n} argument(s), given {}", args.len()), node.span()))
            }
        };
        Ok(match head {
            "and" => Formula::And(args.iter().map(|a| self.formula(a, names, scope)).collect::<Result<_>>()?),
            "or" => Formula::Or(args.iter().map(|a| self.formula(a, names, scope)).collect::<Result<_>>()?),
            "not" => {
                count(1)?;
                Formula::Not(Box::new(self.formula(&args[0], names, scope)?))
            }
            "imply" => {
                count(2)?;
                let a = self.formula(&args[0], names, scope)?;
                Formula::Imply(Box::new(a), Box::new(self.formula(&args[1], names, scope)?))
            }
            "forall" | "exists" => {
                count(2)?;
                let depth = scope.vars.len();
                let vars = self.variables(&args[0], names, scope)?;
                let body = self.formula(&args[1], names, scope);
                scope.vars.truncate(depth);
                let body = Box::new(body?);
                if head == "forall" {
                    Formula::Forall(vars, body)
                } else {
                    Formula::Exists(vars, body)
                }
            }
            "=" if !args.iter().any(|a| a.list().is_some() || a.atom().and_then(Ratio::parse).is_some()) => {
                count(2)?;
                Formula::Equal(self.term(&args[0], names, scope)?, self.term(&args[1], names, scope)?)
            }
            "<" | ">" | "<=" | ">=" | "=" => {
                count(2)?;
                let cmp = Cmp::parse(head).expect("a comparison");
                Formula::Compare(cmp, self.expr(&args[0], names, scope)?, self.expr(&args[1], names, scope)?)
            }
            "preference" => return Err(self.err("preferences are not supported yet", node.span())),
            _ => Formula::Atom(self.atom(node, names, scope)?),
        })
    }

    fn effects(&self, node: &Sexp, names: &Names, scope: &mut Scope, out: &mut Vec<Effect>) -> Result<()> {
        let items = self.list(node, "an effect")?;
        let Some(head) = node.head() else {
            return Err(self.err("expected an effect", node.span()));
        };
        let args = &items[1..];
        match head {
            "and" => {
                for a in args {
                    self.effects(a, names, scope, out)?;
                }
            }
            "not" => {
                if args.len() != 1 || args[0].head().is_none_or(|h| matches!(h, "and" | "not" | "forall" | "when")) {
                    return Err(self.err("`not` in an effect takes one atom", node.span()));
                }
                out.push(Effect::Delete(self.atom(&args[0], names, scope)?));
            }
            "forall" => {
                if args.len() != 2 {
                    return Err(self.err("expected `(forall (VARIABLES) EFFECT)`", node.span()));
                }
                let depth = scope.vars.len();
                let vars = self.variables(&args[0], names, scope)?;
                let mut body = Vec::new();
                let result = self.effects(&args[1], names, scope, &mut body);
                scope.vars.truncate(depth);
                result?;
                out.push(Effect::Forall(vars, body));
            }
            "when" => {
                if args.len() != 2 {
                    return Err(self.err("expected `(when CONDITION EFFECT)`", node.span()));
                }
                let condition = self.formula(&args[0], names, scope)?;
                let mut body = Vec::new();
                self.effects(&args[1], names, scope, &mut body)?;
                if body.iter().any(|e| matches!(e, Effect::Cost(_))) {
                    return Err(self
                        .err("a conditional action cost is not supported yet", args[1].span())
                        .label("`(increase (total-cost) ...)` inside `when`"));
                }
                if body.iter().any(|e| !matches!(e, Effect::Add(_) | Effect::Delete(_) | Effect::Numeric(..))) {
                    return Err(self.err(
                        "only atoms, their negations and numeric effects are supported yet inside `when`",
                        args[1].span(),
                    ));
                }
                out.push(Effect::When(condition, body));
            }
            "increase" | "decrease" | "assign" | "scale-up" => {
                if args.len() != 2 {
                    return Err(self.err(format!("expected `({head} (FUNCTION ...) EXPRESSION)`"), node.span()));
                }
                let op = match head {
                    "increase" => Assign::Increase,
                    "decrease" => Assign::Decrease,
                    "scale-up" => Assign::ScaleUp,
                    _ => Assign::Assign,
                };
                let Expr::Fluent(f, target, _) = self.expr(&args[0], names, scope)? else {
                    return Err(self
                        .err(format!("`{head}` changes a function `(name ...)`"), args[0].span())
                        .label("expected a function here"));
                };
                let value = self.expr(&args[1], names, scope)?;
                if Some(&f) == names.functions.get("total-cost") {
                    if op != Assign::Increase {
                        return Err(self
                            .err(format!("`{head}` of `(total-cost)` is not supported"), node.span())
                            .label("action costs only `increase` it"));
                    }
                    out.push(Effect::Cost(value));
                } else {
                    out.push(Effect::Numeric(op, f, target, value, node.span()));
                }
            }
            "scale-down" => {
                return Err(self
                    .err("`scale-down` is not supported: its results leave the integers", node.span())
                    .label(
                        "numeric fluents are integers; `increase`, `decrease`, `assign` and `scale-up` keep them so",
                    ))
            }
            _ => out.push(Effect::Add(self.atom(node, names, scope)?)),
        }
        Ok(())
    }
}

struct DomainParser {
    p: P,
}

impl DomainParser {
    fn domain(&self, tree: &Sexp) -> Result<Domain> {
        let p = &self.p;
        let (name, sections) = p.define(tree, "domain")?;
        let mut types = vec![Type { name: "object".into(), parents: vec![] }];
        let mut type_index: FxHashMap<String, usize> = FxHashMap::default();
        type_index.insert("object".into(), OBJECT);
        let mut constants: Vec<Object> = Vec::new();
        let mut object_index: FxHashMap<String, usize> = FxHashMap::default();
        let mut predicates: Vec<Predicate> = Vec::new();
        let mut predicate_index: FxHashMap<String, usize> = FxHashMap::default();
        let mut functions: Vec<Function> = Vec::new();
        let mut function_index: FxHashMap<String, usize> = FxHashMap::default();
        let mut action_nodes = Vec::new();
        for section in sections {
            let items = p.list(section, "a domain section `(:keyword ...)`")?;
            let body = items.get(1..).unwrap_or(&[]);
            match section.head() {
                Some(":requirements") => p.requirements(body)?,
                Some(":types") => {
                    // Parents may be declared after their children, or only as parents.
                    let mut declare = |n: &str, types: &mut Vec<Type>| -> usize {
                        *type_index.entry(n.to_string()).or_insert_with(|| {
                            types.push(Type { name: n.to_string(), parents: vec![] });
                            types.len() - 1
                        })
                    };
                    // The resolver hands out 1-based indices into `parent_names` (0 stays
                    // `object`, the type of untyped names), mapped below.
                    let mut parent_names: Vec<String> = Vec::new();
                    let typed = p.typed_list(body, &mut |n, _| {
                        parent_names.push(n.to_string());
                        Ok(parent_names.len())
                    })?;
                    for (child, set) in typed {
                        let c = declare(p.symbol(child, "a type name")?, &mut types);
                        for k in set {
                            let par = match k.checked_sub(1).and_then(|k| parent_names.get(k)) {
                                Some(n) => declare(n, &mut types),
                                None => OBJECT,
                            };
                            if par != c && !types[c].parents.contains(&par) {
                                types[c].parents.push(par);
                            }
                        }
                    }
                }
                Some(":constants") => {
                    p.declare_objects(body, &type_index, &mut object_index, &mut constants, "constant")?
                }
                Some(":predicates") => {
                    for decl in body {
                        let d = p.list(decl, "a predicate declaration `(name ?x - type ...)`")?;
                        let name = p.symbol(d.first().unwrap_or(decl), "a predicate name")?;
                        let mut scope = Scope::default();
                        let names = Names {
                            types: &type_index,
                            predicates: &predicate_index,
                            predicate_arity: &[],
                            functions: &function_index,
                            function_arity: &[],
                            objects: &object_index,
                        };
                        let vars = p.variables(&Sexp::List(d[1..].to_vec(), decl.span()), &names, &mut scope)?;
                        if name == "=" || predicate_index.insert(name.to_string(), predicates.len()).is_some() {
                            return Err(p.err(format!("predicate `{name}` declared twice"), decl.span()));
                        }
                        predicates.push(Predicate {
                            name: name.to_string(),
                            params: vars.into_iter().map(|v| v.types).collect(),
                        });
                    }
                }
                Some(":functions") => {
                    let typed = p.typed_list(body, &mut |n, s| {
                        if n == "number" {
                            Ok(OBJECT)
                        } else {
                            Err(p.err("functions of objects are not supported yet (only `- number`)", s))
                        }
                    })?;
                    for (decl, _) in typed {
                        let d = p.list(decl, "a function declaration `(name ?x - type ...)`")?;
                        let name = p.symbol(d.first().unwrap_or(decl), "a function name")?;
                        let arity = d[1..].iter().filter(|x| x.atom().is_some_and(|a| a.starts_with('?'))).count();
                        if function_index.insert(name.to_string(), functions.len()).is_some() {
                            return Err(p.err(format!("function `{name}` declared twice"), decl.span()));
                        }
                        functions.push(Function { name: name.to_string(), arity, fluent: false });
                    }
                }
                Some(":action") => action_nodes.push(section),
                Some(":derived") => return Err(p.err("derived predicates are not supported yet", section.span())),
                Some(":durative-action") => return Err(p.err("durative actions are not supported yet", section.span())),
                _ => {
                    return Err(p
                        .err("unknown domain section", section.span())
                        .label("expected :requirements, :types, :constants, :predicates, :functions or :action"))
                }
            }
        }
        let predicate_arity: Vec<usize> = predicates.iter().map(|p| p.params.len()).collect();
        let function_arity: Vec<usize> = functions.iter().map(|f| f.arity).collect();
        let names = Names {
            types: &type_index,
            predicates: &predicate_index,
            predicate_arity: &predicate_arity,
            functions: &function_index,
            function_arity: &function_arity,
            objects: &object_index,
        };
        let mut actions: Vec<Action> = Vec::new();
        for node in action_nodes {
            let action = self.action(node, &names)?;
            if actions.iter().any(|a| a.name == action.name) {
                return Err(p.err(format!("action `{}` declared twice", action.name), node.span()));
            }
            actions.push(action);
        }
        let mut domain = Domain {
            name: name.to_string(),
            types,
            constants,
            total_cost: function_index.get("total-cost").copied(),
            predicates,
            functions,
            actions,
        };
        numeric::check_domain(p, &mut domain)?;
        Ok(domain)
    }

    fn action(&self, node: &Sexp, names: &Names) -> Result<Action> {
        let p = &self.p;
        let items = p.list(node, "an action")?;
        let name_node = items.get(1).ok_or_else(|| p.err("expected an action name", node.span()))?;
        let name = p.symbol(name_node, "an action name")?.to_string();
        let mut scope = Scope::default();
        let mut parameters = Vec::new();
        let mut precondition = Formula::And(vec![]);
        let mut effects = Vec::new();
        let mut i = 2;
        while i < items.len() {
            let key = items[i].atom().unwrap_or("");
            let value =
                items.get(i + 1).ok_or_else(|| p.err(format!("expected a value after `{key}`"), items[i].span()))?;
            match key {
                ":parameters" => parameters = p.variables(value, names, &mut scope)?,
                ":precondition" => {
                    precondition = if value.list().is_some_and(|l| l.is_empty()) {
                        Formula::And(vec![])
                    } else {
                        p.formula(value, names, &mut scope)?
                    }
                }
                ":effect" => {
                    if !value.list().is_some_and(|l| l.is_empty()) {
                        p.effects(value, names, &mut scope, &mut effects)?
                    }
                }
                _ => return Err(p.err("expected `:parameters`, `:precondition` or `:effect`", items[i].span())),
            }
            i += 2;
        }
        Ok(Action { name, span: name_node.span(), parameters, slots: scope.slots, precondition, effects })
    }
}

struct ProblemParser<'d> {
    p: P,
    domain: &'d Domain,
}

impl ProblemParser<'_> {
    fn problem(&self, tree: &Sexp) -> Result<Problem> {
        let p = &self.p;
        let d = self.domain;
        let (name, sections) = p.define(tree, "problem")?;
        let type_index: FxHashMap<String, usize> =
            d.types.iter().enumerate().map(|(i, t)| (t.name.clone(), i)).collect();
        let predicate_index: FxHashMap<String, usize> =
            d.predicates.iter().enumerate().map(|(i, x)| (x.name.clone(), i)).collect();
        let predicate_arity: Vec<usize> = d.predicates.iter().map(|x| x.params.len()).collect();
        let function_index: FxHashMap<String, usize> =
            d.functions.iter().enumerate().map(|(i, x)| (x.name.clone(), i)).collect();
        let function_arity: Vec<usize> = d.functions.iter().map(|x| x.arity).collect();
        let mut objects = d.constants.clone();
        let mut object_index: FxHashMap<String, usize> =
            objects.iter().enumerate().map(|(i, o)| (o.name.clone(), i)).collect();
        // Objects first: `:init` and `:goal` may name them whatever the section order.
        for section in sections {
            if section.head() == Some(":objects") {
                let body = p.list(section, "`(:objects ...)`")?.get(1..).unwrap_or(&[]);
                p.declare_objects(body, &type_index, &mut object_index, &mut objects, "object")?;
            }
        }
        let names = Names {
            types: &type_index,
            predicates: &predicate_index,
            predicate_arity: &predicate_arity,
            functions: &function_index,
            function_arity: &function_arity,
            objects: &object_index,
        };
        let mut init = Vec::new();
        let mut function_values = FxHashMap::default();
        let mut goal = None;
        let mut goal_slots = 0;
        let mut minimize_total_cost = false;
        let mut soft_goals: Vec<SoftGoal> = Vec::new();
        let mut first_preference: Option<Span> = None;
        let mut metric: Option<(i64, Vec<Weight>)> = None;
        for section in sections {
            let items = p.list(section, "a problem section `(:keyword ...)`")?;
            let body = items.get(1..).unwrap_or(&[]);
            match section.head() {
                Some(":domain") => {
                    let n = body.first().and_then(Sexp::atom).unwrap_or("");
                    if n != d.name {
                        return Err(p.err(format!("the problem is for domain `{n}`, not `{}`", d.name), section.span()));
                    }
                }
                Some(":requirements") => p.requirements(body)?,
                Some(":objects") => {}
                Some(":init") => {
                    let scope = Scope::default();
                    for fact in body {
                        match fact.head() {
                            Some("=") => {
                                let f = fact.list().unwrap_or(&[]);
                                let (Some(lhs), Some(Sexp::Atom(value, vspan)), 3) = (f.get(1), f.get(2), f.len())
                                else {
                                    return Err(p.err("expected `(= (function ...) number)`", fact.span()));
                                };
                                let Expr::Fluent(func, args, _) = p.expr(lhs, &names, &scope)? else {
                                    return Err(p.err("expected a function `(name ...)`", lhs.span()));
                                };
                                let objs = args.iter().map(|t| match t {
                                    Term::Object(o) => *o,
                                    Term::Var(_) => unreachable!("no variables in scope in `:init`"),
                                });
                                let v = Ratio::parse(value).ok_or_else(|| {
                                    p.err("expected a number", *vspan).label("a function's value is a number")
                                })?;
                                function_values.insert((func, objs.collect()), v);
                            }
                            Some("not") => {}
                            _ => {
                                let atom = p.atom(fact, &names, &scope)?;
                                let objs = atom.args.iter().map(|t| match t {
                                    Term::Object(o) => *o,
                                    Term::Var(_) => unreachable!("no variables in scope in `:init`"),
                                });
                                init.push((atom.predicate, objs.collect()));
                            }
                        }
                    }
                }
                Some(":goal") => {
                    let g = body.first().ok_or_else(|| p.err("expected a goal", section.span()))?;
                    let mut scope = Scope::default();
                    // Preferences are conjuncts of the goal; the rest is the hard goal.
                    let parts: Vec<&Sexp> = match g.head() {
                        Some("and") => g.list().unwrap_or(&[])[1..].iter().collect(),
                        _ => vec![g],
                    };
                    let mut hard = Vec::new();
                    for part in parts {
                        if part.head() != Some("preference") {
                            hard.push(p.formula(part, &names, &mut scope)?);
                            continue;
                        }
                        let items = part.list().unwrap_or(&[]);
                        let (3, Some(name)) = (items.len(), items.get(1).and_then(Sexp::atom)) else {
                            return Err(p.err("expected `(preference NAME CONDITION)`", part.span()));
                        };
                        if soft_goals.iter().any(|g| g.name == name) {
                            return Err(p.err(format!("the preference `{name}` is named twice"), items[1].span()));
                        }
                        let formula = p.formula(&items[2], &names, &mut scope)?;
                        numeric::check_formula(p, d, &formula)?;
                        soft_goals.push(SoftGoal { name: name.to_string(), formula, penalty: 0 });
                        first_preference = first_preference.or(Some(part.span()));
                    }
                    hard.iter().try_for_each(|f| numeric::check_formula(p, d, f))?;
                    goal = Some(if hard.len() == 1 { hard.remove(0) } else { Formula::And(hard) });
                    goal_slots = scope.slots;
                }
                Some(":metric") => {
                    let total_cost =
                        |e: &Sexp| e.head() == Some("total-cost") && e.list().is_some_and(|l| l.len() == 1);
                    if body.len() == 2 && body[0].atom() == Some("minimize") && total_cost(&body[1]) {
                        minimize_total_cost = true;
                    } else if body.len() == 2 && body[0].atom() == Some("maximize") {
                        let (constant, terms, with_cost) = p.net_benefit(&body[1])?;
                        minimize_total_cost = with_cost;
                        metric = Some((constant, terms));
                    } else {
                        return Err(p.err(
                            "metrics other than `minimize (total-cost)` and `maximize (- C (+ (total-cost) \
                             (* (is-violated p) w) ...))` are not supported yet",
                            section.span(),
                        ));
                    }
                }
                Some(":constraints") => return Err(p.err("constraints are not supported yet", section.span())),
                _ => return Err(p.err("unknown problem section", section.span())),
            }
        }
        let goal = goal.ok_or_else(|| p.err("the problem has no `:goal`", tree.span()))?;
        let net_benefit = match metric {
            Some((constant, terms)) => {
                for (name, weight, span) in terms {
                    let Some(g) = soft_goals.iter_mut().find(|g| g.name == name) else {
                        return Err(p.err(format!("no goal preference is named `{name}`"), span));
                    };
                    g.penalty = g.penalty.saturating_add(weight);
                }
                Some(NetBenefit { constant })
            }
            None => {
                if let Some(span) = first_preference {
                    return Err(p
                        .err("goal preferences need a net-benefit metric", span)
                        .label("add `(:metric maximize (- C (+ (total-cost) (* (is-violated NAME) W) ...)))`"));
                }
                None
            }
        };
        // Objects of each type: an object is of its declared types and all their ancestors.
        let mut objects_of_type = vec![Vec::new(); d.types.len()];
        for (i, o) in objects.iter().enumerate() {
            let mut seen = vec![false; d.types.len()];
            let mut stack: Vec<usize> = o.types.clone();
            stack.push(OBJECT);
            while let Some(t) = stack.pop() {
                if !seen[t] {
                    seen[t] = true;
                    objects_of_type[t].push(i);
                    stack.extend(d.types[t].parents.iter().copied());
                }
            }
        }
        Ok(Problem {
            name: name.to_string(),
            objects,
            objects_of_type,
            init,
            function_values,
            goal,
            goal_slots,
            minimize_total_cost,
            soft_goals,
            net_benefit,
        })
    }
}
