import { relative } from 'node:path';
import ts from 'typescript';

/** Whether a declaration key (or file) is of `libs/db`, whose classes are read member by member. */
export function isRepositoryKey(key: string): boolean {
  return key.startsWith('libs/db/src/');
}

/** What the walk asks the type checker. */
export class Types {
  /** Every method name of a `libs/db` class: only a use of one of them is worth a type. */
  private readonly methodNames = new Set<string>();

  constructor(
    private readonly root: string,
    private readonly program: ts.Program,
    private readonly checker: ts.TypeChecker,
  ) {
    for (const source of program.getSourceFiles()) {
      if (!isRepositoryKey(relative(root, source.fileName))) continue;
      for (const statement of source.statements)
        if (ts.isClassDeclaration(statement))
          for (const member of statement.members)
            if (member.name && ts.isIdentifier(member.name)) this.methodNames.add(member.name.text);
    }
  }

  isMethodName(name: string): boolean {
    return this.methodNames.has(name);
  }

  /** Whether a file's nodes are the program's (and so have types). */
  typed(file: string): boolean {
    return this.program.getSourceFile(file) !== undefined;
  }

  /**
   * The `libs/db` class members (`<class key>.<name>`) a property access may call, as the checker
   * resolves the property (through `Pick<>`, unions and base classes alike), or `*` when it
   * cannot (a receiver of type any).
   */
  membersAt(access: ts.PropertyAccessExpression): string[] | '*' {
    const symbol = this.checker.getSymbolAtLocation(access.name);
    const declarations = symbol?.declarations ?? [];
    if (declarations.length === 0) return '*';
    const members: string[] = [];
    for (const declaration of declarations) {
      const owner = declaration.parent;
      const file = relative(this.root, owner.getSourceFile().fileName);
      // A port of ours (an interface a repository may be passed as): any class with the method.
      if (!ts.isClassDeclaration(owner) && !file.startsWith('node_modules/')) return '*';
      if (ts.isClassDeclaration(owner) && owner.name && isRepositoryKey(file))
        members.push(`${file}#${owner.name.text}.${access.name.text}`);
    }
    return members;
  }
}
