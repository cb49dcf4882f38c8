import { Field, ID, InputType, ObjectType } from '@nestjs/graphql';
import { IsIn, IsString, IsUUID, Length, Matches } from 'class-validator';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH, ROLES, type Role } from '@lunanexa/contracts';
import type { CredentialKind } from '../principal';
import { CredentialKindValues, RoleValues } from './role.enum';

@ObjectType({ description: 'An operator account.' })
export class Operator {
  @Field(() => ID)
  id!: string;

  @Field({ description: 'Lower-case; unique regardless of case.' })
  username!: string;

  @Field(() => RoleValues)
  role!: Role;

  @Field(() => Date, {
    nullable: true,
    description: 'Set when the account was disabled; it can no longer log in.',
  })
  disabledAt!: Date | null;

  @Field()
  createdAt!: Date;
}

@ObjectType({ description: 'The caller: their account and what this credential may do.' })
export class Me {
  @Field(() => Operator)
  operator!: Operator;

  @Field(() => RoleValues, {
    description:
      "What this request may do: the session's role, or the lower of an API token's and its owner's.",
  })
  role!: Role;

  @Field(() => CredentialKindValues)
  credential!: CredentialKind;

  @Field(() => String, { nullable: true, description: 'API tokens only: the display prefix.' })
  tokenPrefix!: string | null;

  @Field(() => Date, { nullable: true, description: 'When this credential stops working (null: never).' })
  expiresAt!: Date | null;
}

/** Usernames as typed: any case (stored lower-case), 2-64 characters. */
const USERNAME_INPUT = /^[A-Za-z][A-Za-z0-9._-]{1,63}$/;

@InputType({ description: 'A new operator account.' })
export class CreateOperatorInput {
  @Field({ description: '2-64 of letters, digits, . _ -, starting with a letter; stored lower-case.' })
  @IsString()
  @Matches(USERNAME_INPUT, {
    message: 'username must be 2-64 of letters, digits, . _ -, starting with a letter',
  })
  username!: string;

  @Field({ description: `${PASSWORD_MIN_LENGTH}-${PASSWORD_MAX_LENGTH} characters.` })
  @IsString()
  @Length(PASSWORD_MIN_LENGTH, PASSWORD_MAX_LENGTH, {
    message: `password must be ${PASSWORD_MIN_LENGTH}-${PASSWORD_MAX_LENGTH} characters`,
  })
  password!: string;

  @Field(() => RoleValues)
  @IsIn(ROLES)
  role!: Role;
}

@InputType({ description: "Change an operator's role; their sessions end." })
export class SetOperatorRoleInput {
  @Field(() => ID)
  @IsUUID()
  operatorId!: string;

  @Field(() => RoleValues)
  @IsIn(ROLES)
  role!: Role;
}

@InputType({
  description: 'Your current password and the new one; every session of yours ends, a fresh one is returned.',
})
export class ChangePasswordInput {
  @Field()
  @IsString()
  @Length(1, PASSWORD_MAX_LENGTH)
  currentPassword!: string;

  @Field({ description: `${PASSWORD_MIN_LENGTH}-${PASSWORD_MAX_LENGTH} characters.` })
  @IsString()
  @Length(PASSWORD_MIN_LENGTH, PASSWORD_MAX_LENGTH, {
    message: `newPassword must be ${PASSWORD_MIN_LENGTH}-${PASSWORD_MAX_LENGTH} characters`,
  })
  newPassword!: string;
}

@InputType({ description: "Set another operator's password; their sessions end." })
export class ResetOperatorPasswordInput {
  @Field(() => ID)
  @IsString()
  operatorId!: string;

  @Field({ description: `${PASSWORD_MIN_LENGTH}-${PASSWORD_MAX_LENGTH} characters.` })
  @IsString()
  @Length(PASSWORD_MIN_LENGTH, PASSWORD_MAX_LENGTH, {
    message: `newPassword must be ${PASSWORD_MIN_LENGTH}-${PASSWORD_MAX_LENGTH} characters`,
  })
  newPassword!: string;
}
